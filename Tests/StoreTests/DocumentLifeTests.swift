import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
@testable import PreviewDomain
import PreviewPipeline
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// Listing, deletion, versions and relabelling, on both backends.
@Suite struct DocumentLifeTests {
    let logger = Logger(label: "test")

    /// A store whose documents are indexed straight away (their bytes are small made-up blobs).
    struct Indexed {
        let backend: StoreBackend
        let folder: TemporaryFolder
        var store: Store { backend.store }

        init(_ backend: TestBackend) async throws {
            folder = try TemporaryFolder()
            self.backend = try await backend.open(root: folder.url.appendingPathComponent("store"))
        }

        @discardableResult
        func add(
            owner: String = "ana", type: DocumentType.ID? = nil, title: String, kind: FileKind = .pdf, bytes: String? = nil,
            status: PreviewStatus = .ready, createdAt: Date = Date()
        ) async throws -> Document {
            let content = Array((bytes ?? "\(owner)/\(type ?? "")/\(title)/\(UUID())").utf8)
            let hash = try await store.blobs.put(bytes: content, as: .original)
            let record = Document(
                id: UUID().uuidString.lowercased(), owner: owner, type: type, title: title, filename: "\(title).\(kind)",
                sha256: hash, kind: kind, mime: "application/octet-stream", size: content.count, facts: MediaFacts(),
                version: 0, previewStatus: status, createdAt: createdAt)
            return try await store.index.insertVersion(record).document
        }

        /// Every page of `query`, followed cursor by cursor; its title search made the given way
        /// (nil: the way the index chooses).
        func all(_ query: DocumentQuery, search: TextSearch? = nil) async throws -> [Document] {
            var query = query
            var documents: [Document] = []
            while true {
                let page = try await store.index.list(query, search: search)
                documents += page.documents
                guard let next = page.next else { return documents }
                #expect(DocumentCursor(token: next.token, sort: query.sort) == next, "a cursor survives its token")
                query.after = next
            }
        }
    }

    @Test(arguments: TestBackend.available) func deletingDropsStatisticsAndGCReclaimsWhatNothingUses(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        func ingest(_ sample: String, title: String, owner: String = "ana") async throws -> Document {
            let outcome = await pipeline.ingest(Fixtures.sample(sample), labels: DocumentLabels(owner: owner, title: title, filename: sample))
            let id = try #require(outcome.documentID)
            return try await #require(try store.index.document(id: id))
        }
        let letterV1 = try await ingest("document-5-pages.pdf", title: "letter")
        let letterV2 = try await ingest("image.webp", title: "letter")
        let shared = try await ingest("image.webp", title: "photo", owner: "ben")  // the same bytes as letter v2
        let kept = try await ingest("video-h264.mp4", title: "film")
        let before = try await store.index.statistics()
        let blobsBefore = try await store.blobs.allBlobs().count

        let deletion = try await store.index.delete(documentID: letterV1.id, version: nil)
        #expect(deletion.versions.map(\.version).sorted() == [1, 2], "any version's id names the whole document")
        let after = try await store.index.statistics()
        #expect(after.documents == before.documents - 1)
        #expect(after.versions == before.versions - 2)
        #expect(after.logicalBytes == before.logicalBytes - letterV1.size - letterV2.size, "exactly the deleted bytes")
        #expect(after.storedBytes == before.storedBytes - letterV1.size, "letter v2's bytes are still ben's photo")
        #expect(try await store.index.document(id: letterV2.id) == nil)
        #expect(try await store.index.delete(documentID: letterV1.id, version: nil).versions.isEmpty, "a second delete finds nothing")

        let young = try await store.collectGarbage(grace: 3600, dryRun: false, logger: logger)
        #expect(young.blobs == 0, "nothing is reclaimed inside the grace period")
        #expect(try await store.collectGarbage(grace: 0, dryRun: true, logger: logger).blobs == 2, "a dry run sees the same")
        let collected = try await store.collectGarbage(grace: 0, dryRun: false, logger: logger)
        #expect(collected.blobs == 2, "the PDF and its thumbnail; the shared image and its thumbnail stay")
        #expect(try await store.blobs.allBlobs().count == blobsBefore - 2)
        #expect(await !store.blobs.contains(letterV1.sha256))
        let (sharedKept, keptKept) = (await store.blobs.contains(shared.sha256), await store.blobs.contains(kept.sha256))
        #expect(sharedKept && keptKept)
        #expect(try await store.verify().isClean)
        #expect(try await pipeline.cachedPreview(source: shared.sha256, kind: .webp, request: .thumbnail) != nil, "shared previews kept")
        #expect(after.previews == before.previews - 1, "the deleted PDF's thumbnail no longer counts")
        #expect(try await store.index.statistics() == after, "gc changes no figure")
    }

    /// Forgetting blobs takes any number of hashes (more than either backend binds in one statement)
    /// and forgets exactly the indexed blobs that nothing refers to.
    @Test(arguments: TestBackend.available) func forgettingBlobsTakesAnyNumberOfHashes(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        for (sample, title) in [("image.webp", "photo"), ("document-5-pages.pdf", "letter")] {
            _ = await pipeline.ingest(Fixtures.sample(sample), labels: DocumentLabels(owner: "ana", title: title, filename: sample))
        }
        let letter = try #require(try await store.index.list(DocumentQuery(owner: "ana")).documents.first { $0.title == "letter" })
        _ = try await store.index.delete(documentID: letter.id, version: nil)
        try await store.index.forgetDeadDerivatives()
        let (indexed, referenced) = (try await store.index.indexedBlobs(), try await store.index.referencedBlobs())
        let unknown = (0..<70_000).map { BlobHash.of(Array("not stored \($0)".utf8)) }

        let forgotten = try await store.index.forgetBlobs(ifUnused: unknown + Array(indexed))
        #expect(Set(forgotten) == indexed.subtracting(referenced) && forgotten.contains(letter.sha256))
        #expect(try await store.index.indexedBlobs() == referenced)
    }

    @Test(arguments: TestBackend.available) func oneVersionCanGo(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        let first = try await indexed.add(title: "cv", bytes: "first")
        let second = try await indexed.add(title: "cv", bytes: "second!")
        #expect(try await indexed.store.index.delete(documentID: first.id, version: 3).versions.isEmpty)
        #expect(try await indexed.store.index.delete(documentID: first.id, version: 2).versions.map(\.id) == [second.id])
        #expect(try await indexed.store.index.list(DocumentQuery(owner: "ana")).documents.map(\.id) == [first.id], "v1 is current again")
        #expect(try await indexed.store.index.statistics().logicalBytes == 5)
    }

    @Test(arguments: TestBackend.available) func restoreIsANewVersionOfTheSameBlob(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await backend.open(root: folder.url.appendingPathComponent("store"))
        let documents = DocumentService(backend: opened, offload: .forTests, logger: logger)
        let pipeline = documents.pipeline
        let labels = DocumentLabels(owner: "ana", title: "clip", filename: "clip.mp4")
        let v1 = try await #require(pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: labels).documentID)
        _ = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(owner: "ana", title: "clip", filename: "clip.pdf"))
        let blobs = try await opened.store.blobs.allBlobs().count

        let (restored, job) = try await documents.restore(version: 1, of: v1)
        let original = try await #require(try opened.store.index.document(id: v1))
        #expect(restored.version == 3 && restored.sha256 == original.sha256 && restored.id != v1)
        #expect(original.frameSeconds == 0 && original.posterScore.map { $0 > 0.5 } == true, "the poster's time and score are kept")
        #expect(restored.previewStatus == .ready && restored.facts == original.facts, "facts and status come along")
        #expect(job.status == .done, "nothing to render: the previews are the first version's")
        #expect(try await opened.store.blobs.allBlobs().count == blobs, "no bytes copied")
        #expect(try await opened.store.index.versions(of: v1).map(\.version) == [3, 2, 1])
        #expect(try await documents.restore(version: 3, of: v1).document.id == restored.id, "restoring the current one changes nothing")
        await #expect(throws: PreviewError.self) { try await documents.restore(version: 9, of: v1) }
    }

    /// A failed job is queued again with what was remembered against its file forgotten, so its
    /// renders are tried again; a job that did not fail is not.
    @Test(arguments: TestBackend.available) func aRetriedJobForgetsItsFilesFailures(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        let documents = DocumentService(backend: indexed.backend, offload: .forTests, logger: logger)
        let (stored, _) = try await indexed.backend.queue.enqueue(try indexed.add(title: "scan", status: .pending))
        let (leased, _) = try await #require(try indexed.backend.queue.lease(worker: "test", leaseSeconds: 60, kinds: [.preview]))
        let crash = PreviewError(.corrupt, "The file crashed the renderer.")
        let failed = try await indexed.backend.queue.fail(leased, error: crash, retryable: false, recording: nil)
        try await indexed.store.index.recordFailure(RenderFailure(key: "scan-thumbnail", sourceSha256: stored.sha256, error: crash))
        let other = try await indexed.backend.queue.enqueue(try indexed.add(title: "letter", status: .pending)).job

        #expect(try await documents.retryJob(id: try #require(other.id)) == false, "a queued job is not retried")
        #expect(try await documents.retryJob(id: try #require(failed.id)))
        #expect(try await indexed.backend.queue.job(id: try #require(failed.id))?.status == .queued)
        #expect(try await indexed.store.index.failure(key: "scan-thumbnail") == nil, "the file's crash is forgotten")
        #expect(try await documents.retryFailedJobs() == 0)
    }

    @Test(arguments: TestBackend.available) func relabellingMovesEveryVersion(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        let first = try await indexed.add(type: "resume", title: "cv")
        try await indexed.add(type: "resume", title: "cv")
        try await indexed.add(type: "resume", title: "old cv")
        let renamed = try await #require(try indexed.store.index.relabel(documentID: first.id, to: Relabelling(title: "CV 2026", type: "resume")))
        #expect(renamed.title == "CV 2026" && renamed.version == 1)
        #expect(try await indexed.store.index.versions(of: first.id).map(\.title) == ["CV 2026", "CV 2026"])
        await #expect(throws: LabelTaken.self) {
            try await indexed.store.index.relabel(documentID: first.id, to: Relabelling(title: "old cv", type: "resume"))
        }
        #expect(try await indexed.store.index.relabel(documentID: "no-such-id", to: Relabelling(title: "x", type: nil)) == nil)
    }

    /// A description and a school belong to a version: a new version keeps the latest's unless it
    /// says its own, a relabel gives them to the latest only. A text search finds the latest versions
    /// by a word of their title, description or file name, the same each way; `school` filters.
    @Test(arguments: TestBackend.available) func descriptionsAndSchoolsAreKeptPerVersionAndSearched(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        func add(_ title: String, filename: String, description: String = "", school: String? = nil, owner: String = "ana") async throws -> Document {
            let content = Array("\(title)/\(UUID())".utf8)
            let hash = try await indexed.store.blobs.put(bytes: content, as: .original)
            let record = Document(
                id: UUID().uuidString.lowercased(), owner: owner, type: nil, title: title, filename: filename,
                description: description, school: school, sha256: hash, kind: .pdf, mime: "application/pdf",
                size: content.count, facts: MediaFacts(), version: 0, previewStatus: .ready, createdAt: Date())
            return try await indexed.store.index.insertVersion(record).document
        }
        let first = try await add("Letter", filename: "coach.pdf", description: "From Coach Rivera, varsity", school: "Lakeside Prep")
        let second = try await add("Letter", filename: "coach-2.pdf")
        #expect(
            second.version == 2 && second.description == "From Coach Rivera, varsity" && second.school == "Lakeside Prep",
            "a new version keeps the description and school it does not replace")
        let transcript = try await add("Transcript", filename: "Transcript_Final.PDF", description: "Fall term", school: "North High")
        _ = try await add("Stats", filename: "stats.pdf", school: "North High", owner: "ben")

        let relabelled = try await #require(
            try indexed.store.index.relabel(
                documentID: first.id, to: Relabelling(title: "Letter", type: nil, description: "All-state, two seasons", school: "Lakeside Prep")))
        #expect(relabelled.description == "From Coach Rivera, varsity", "version 1 keeps its own")
        #expect(try await indexed.store.index.versions(of: first.id).map(\.description) == ["All-state, two seasons", "From Coach Rivera, varsity"])

        for search in [nil, TextSearch.walk, .lookUp, .walkStart, .readInOrder] {
            func found(_ text: String, owner: String? = nil) async throws -> Set<String> {
                await Set(try indexed.all(DocumentQuery(owner: owner, containing: text), search: search).map(\.id))
            }
            #expect(try await found("ALL-STATE") == [second.id], "the latest description, any case (\(String(describing: search)))")
            #expect(try await found("rivera").isEmpty, "an earlier version's description is not the document's")
            #expect(try await found("transcript_final") == [transcript.id], "the file name")
            #expect(try await found("term") == [transcript.id])
            #expect(try await found("letter") == [second.id], "the title")
            let (across, acrossAgain) = (try await found("letter all-state"), try await found("seasons coach"))
            #expect(across.isEmpty && acrossAgain.isEmpty, "no match across two fields")
            #expect(try await found("lakeside") == [second.id], "the school")
            #expect(try await found("north high", owner: "ana") == [transcript.id])
            #expect(try await found("seasons lakeside").isEmpty, "no match across the description and the school")
        }
        #expect(await Set(try indexed.all(DocumentQuery(school: "North High")).map(\.title)) == ["Transcript", "Stats"])
        #expect(try await indexed.all(DocumentQuery(owner: "ana", school: "North High")).map(\.id) == [transcript.id])
        #expect(try await indexed.all(DocumentQuery(school: "Lakeside Prep")).map(\.id) == [second.id])
    }
}
