import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewPipeline
@testable import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// Listing, deletion, versions and relabelling, on both backends.
@Suite(.blocking) struct DocumentLifeTests {
    let logger = Logger(label: "test")

    /// A store whose documents are indexed straight away (their bytes are small made-up blobs).
    struct Indexed {
        let backend: StoreBackend
        let folder: TemporaryFolder
        var store: Store { backend.store }

        init(_ backend: TestBackend) throws {
            folder = try TemporaryFolder()
            self.backend = try backend.open(root: folder.url.appendingPathComponent("store"))
        }

        @discardableResult
        func add(owner: String = "ana", type: DocumentType.ID? = nil, title: String, kind: FileKind = .pdf, bytes: String? = nil,
                 status: PreviewStatus = .ready) throws -> Document {
            let content = Array((bytes ?? "\(owner)/\(type ?? "")/\(title)/\(UUID())").utf8)
            let hash = try store.blobs.put(bytes: content, as: .original)
            let record = Document(id: UUID().uuidString.lowercased(), owner: owner, type: type, title: title, filename: "\(title).\(kind)",
                                        sha256: hash, kind: kind, mime: "application/octet-stream", size: content.count, facts: MediaFacts(),
                                        version: 0, previewStatus: status, createdAt: Date())
            return try store.index.insertVersion(record).document
        }

        /// Every page of `query`, followed cursor by cursor; its title search made the given way
        /// (nil: the way the index chooses).
        func all(_ query: DocumentQuery, search: TextSearch? = nil) throws -> [Document] {
            var query = query
            var documents: [Document] = []
            while true {
                let page = try list(query, search: search)
                documents += page.documents
                guard let next = page.next else { return documents }
                #expect(DocumentCursor(token: next.token, sort: query.sort) == next, "a cursor survives its token")
                query.after = next
            }
        }

        private func list(_ query: DocumentQuery, search: TextSearch?) throws -> DocumentPage {
            switch (search, store.index) {
            case let (search?, index as SQLiteIndex): try index.list(query, search: search)
            case let (search?, index as PostgresIndex): try index.list(query, search: search)
            default: try store.index.list(query)
            }
        }
    }

    @Test(arguments: TestBackend.available) func listingFiltersSortsAndPages(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        try indexed.add(type: "resume", title: "Zebra CV")
        try indexed.add(type: "transcript", title: "alpha transcript", status: .pending)
        try indexed.add(type: "resume", title: "beta résumé", kind: .docx)
        try indexed.add(type: "highlight_video", title: "Game film", kind: .mp4, status: .failed)
        try indexed.add(owner: "ben", type: "resume", title: "Ben CV")
        let untyped = try indexed.add(title: "untyped note", kind: .text, status: .noPreview)
        #expect(try indexed.store.index.document(id: untyped.id)?.type == nil, "no type reads back as none")
        let replaced = try indexed.add(type: "resume", title: "Zebra CV")  // a second version: listed instead of the first
        #expect(replaced.version == 2)

        let ana = try indexed.all(DocumentQuery(owner: "ana", limit: 2))
        #expect(ana.count == 5, "latest versions only, one owner")
        #expect(ana.map(\.createdAt) == ana.map(\.createdAt).sorted(by: >), "newest first")
        #expect(ana.contains { $0.id == replaced.id })
        #expect(Set(ana.map(\.id)).count == ana.count, "no document twice across pages")

        #expect(try indexed.all(DocumentQuery(owner: "ana", sort: .oldest, limit: 2)).map(\.id) == ana.reversed().map(\.id))
        #expect(try indexed.all(DocumentQuery(owner: "ana", sort: .title, limit: 2)).map(\.title)
                == ["alpha transcript", "beta résumé", "Game film", "untyped note", "Zebra CV"], "titles in any case")
        #expect(try indexed.all(DocumentQuery(owner: "ana", sort: .type, limit: 1)).map(\.title)
                == ["untyped note", "Game film", "beta résumé", "Zebra CV", "alpha transcript"], "type, then title")

        #expect(try indexed.all(DocumentQuery(type: "resume")).map(\.title).sorted() == ["Ben CV", "Zebra CV", "beta résumé"])
        #expect(try indexed.all(DocumentQuery(owner: "ana", type: "")).map(\.title) == ["untyped note"])
        #expect(try indexed.all(DocumentQuery(kind: "mp4")).map(\.title) == ["Game film"])
        #expect(try indexed.all(DocumentQuery(containing: "cV")).map(\.title).sorted() == ["Ben CV", "Zebra CV"])
        #expect(try indexed.all(DocumentQuery(containing: "RÉSUMÉ")).map(\.title) == ["beta résumé"],
                "titles fold the same on both backends, beyond ASCII")
        #expect(try indexed.all(DocumentQuery(status: .failed)).map(\.title) == ["Game film"])
        #expect(try indexed.all(DocumentQuery(owner: "ana", containing: "%")).isEmpty, "search text is text, not a pattern")
        #expect(DocumentCursor(token: "not a cursor", sort: .newest) == nil)
        let titleCursor = try #require(try indexed.store.index.list(DocumentQuery(sort: .title, limit: 1)).next)
        #expect(DocumentCursor(token: titleCursor.token, sort: .newest) == nil, "a cursor is for the order it was made in")
    }

    /// A text search finds the same documents, in the same order and pages, whether it walks the
    /// order's index (whole, or its start) or looks the text up in the search index (``TextSearch``),
    /// and what a title or file name holds is matched as text: case and accents folded, quotes and
    /// wildcards literal. Relabelled and deleted versions leave the search index with their rows.
    @Test(arguments: TestBackend.available) func aTextSearchFindsTheSameEitherWay(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        let titles = ["Junior Report", "report card", "REPORTS 2026", "Résumé final", "resume draft", "Say \"hi\" there",
                      "50% done", "50 percent", "x_y notes", "xay notes", "back\\slash", "Reporter's notebook"]
        for (number, title) in titles.enumerated() {
            try indexed.add(owner: number % 3 == 0 ? "ben" : "ana", type: number % 2 == 0 ? "resume" : nil, title: title)
        }
        try indexed.add(owner: "ana", title: "report card")  // a second version: one document still
        let relabelled = try indexed.add(owner: "ana", title: "old report")
        _ = try indexed.store.index.relabel(documentID: relabelled.id, to: Relabelling(title: "new summary", type: nil))
        let deleted = try indexed.add(owner: "ana", title: "gone report")
        _ = try indexed.store.index.delete(documentID: deleted.id, version: nil)

        let listed = try indexed.all(DocumentQuery(limit: 200))
        for text in ["report", "RÉSUM", "\"hi\"", "50%", "x_y", "\\sl", "summary", "old report", "gone", "nobody's"] {
            for sort in DocumentQuery.Sort.allCases {
                for owner in [nil, "ana"] {
                    let query = DocumentQuery(owner: owner, containing: text, sort: sort, limit: 2)
                    let walked = try indexed.all(query, search: .walk)
                    let expected = try indexed.all(DocumentQuery(owner: owner, sort: sort, limit: 200))
                        .filter { document in
                            [document.title, document.description, document.filename].contains {
                                DocumentLabels.titleKey($0).contains(DocumentLabels.titleKey(text))
                            }
                        }
                    #expect(walked.map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): walked")
                    #expect(try indexed.all(query, search: .lookUp).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): looked up")
                    #expect(try indexed.all(query).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): chosen")
                    // The start of an order this short is all of it.
                    #expect(try indexed.all(query, search: .walkStart).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): start")
                }
            }
        }
        #expect(try indexed.all(DocumentQuery(containing: "report", limit: 200)).count == 5,
                "four titles, and the relabelled one's file name: \(listed.map(\.title))")
        #expect(try indexed.all(DocumentQuery(containing: "new summary")).map(\.id) == [relabelled.id])
    }

    /// Pages read while others upload: every document that was there throughout appears exactly once.
    @Test(arguments: TestBackend.available) func aCursorHoldsAcrossConcurrentInserts(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        let present = try (0..<9).map { try indexed.add(title: "doc \($0)") }
        for sort in DocumentQuery.Sort.allCases {
            var query = DocumentQuery(owner: "ana", sort: sort, limit: 2)
            var seen: [String] = []
            while true {
                let page = try indexed.store.index.list(query)
                seen += page.documents.map(\.id)
                try indexed.add(title: "new \(sort) \(seen.count)")  // lands before or after the cursor, depending on the order
                guard let next = page.next else { break }
                query.after = next
            }
            for document in present {
                #expect(seen.filter { $0 == document.id }.count == 1, "\(sort): \(document.title) once")
            }
            #expect(Set(seen).count == seen.count, "\(sort): nothing repeated")
        }
    }

    @Test(arguments: TestBackend.available) func deletingDropsStatisticsAndGCReclaimsWhatNothingUses(backend: TestBackend) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, logger: logger)
        func ingest(_ sample: String, title: String, owner: String = "ana") throws -> Document {
            let outcome = pipeline.ingest(Fixtures.sample(sample), labels: DocumentLabels(owner: owner, title: title, filename: sample))
            let id = try #require(outcome.documentID)
            return try #require(try store.index.document(id: id))
        }
        let letterV1 = try ingest("document-5-pages.pdf", title: "letter")
        let letterV2 = try ingest("image.webp", title: "letter")
        let shared = try ingest("image.webp", title: "photo", owner: "ben")  // the same bytes as letter v2
        let kept = try ingest("video-h264.mp4", title: "film")
        let before = try store.index.statistics()
        let blobsBefore = try store.blobs.allBlobs().count

        let deletion = try store.index.delete(documentID: letterV1.id, version: nil)
        #expect(deletion.versions.map(\.version).sorted() == [1, 2], "any version's id names the whole document")
        let after = try store.index.statistics()
        #expect(after.documents == before.documents - 1)
        #expect(after.versions == before.versions - 2)
        #expect(after.logicalBytes == before.logicalBytes - letterV1.size - letterV2.size, "exactly the deleted bytes")
        #expect(after.storedBytes == before.storedBytes - letterV1.size, "letter v2's bytes are still ben's photo")
        #expect(try store.index.document(id: letterV2.id) == nil)
        #expect(try store.index.delete(documentID: letterV1.id, version: nil).versions.isEmpty, "a second delete finds nothing")

        let young = try store.collectGarbage(grace: 3600, dryRun: false, logger: logger)
        #expect(young.blobs == 0, "nothing is reclaimed inside the grace period")
        #expect(try store.collectGarbage(grace: 0, dryRun: true, logger: logger).blobs == 2, "a dry run sees the same")
        let collected = try store.collectGarbage(grace: 0, dryRun: false, logger: logger)
        #expect(collected.blobs == 2, "the PDF and its thumbnail; the shared image and its thumbnail stay")
        #expect(try store.blobs.allBlobs().count == blobsBefore - 2)
        #expect(!store.blobs.contains(letterV1.sha256))
        #expect(store.blobs.contains(shared.sha256) && store.blobs.contains(kept.sha256))
        #expect(try store.verify().isClean)
        #expect(try pipeline.cachedPreview(source: shared.sha256, kind: .webp, request: .thumbnail) != nil, "shared previews kept")
        #expect(after.previews == before.previews - 1, "the deleted PDF's thumbnail no longer counts")
        #expect(try store.index.statistics() == after, "gc changes no figure")
    }

    @Test(arguments: TestBackend.available) func oneVersionCanGo(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        let first = try indexed.add(title: "cv", bytes: "first")
        let second = try indexed.add(title: "cv", bytes: "second!")
        #expect(try indexed.store.index.delete(documentID: first.id, version: 3).versions.isEmpty)
        #expect(try indexed.store.index.delete(documentID: first.id, version: 2).versions.map(\.id) == [second.id])
        #expect(try indexed.store.index.list(DocumentQuery(owner: "ana")).documents.map(\.id) == [first.id], "v1 is current again")
        #expect(try indexed.store.index.statistics().logicalBytes == 5)
    }

    @Test(arguments: TestBackend.available) func restoreIsANewVersionOfTheSameBlob(backend: TestBackend) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try backend.open(root: folder.url.appendingPathComponent("store"))
        let documents = DocumentService(backend: opened, logger: logger)
        let pipeline = documents.pipeline
        let labels = DocumentLabels(owner: "ana", title: "clip", filename: "clip.mp4")
        let v1 = try #require(pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: labels).documentID)
        _ = pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(owner: "ana", title: "clip", filename: "clip.pdf"))
        let blobs = try opened.store.blobs.allBlobs().count

        let (restored, job) = try documents.restore(version: 1, of: v1)
        let original = try #require(try opened.store.index.document(id: v1))
        #expect(restored.version == 3 && restored.sha256 == original.sha256 && restored.id != v1)
        #expect(restored.previewStatus == .ready && restored.facts == original.facts, "facts and status come along")
        #expect(job.status == .done, "nothing to render: the previews are the first version's")
        #expect(try opened.store.blobs.allBlobs().count == blobs, "no bytes copied")
        #expect(try opened.store.index.versions(of: v1).map(\.version) == [3, 2, 1])
        #expect(try documents.restore(version: 3, of: v1).document.id == restored.id, "restoring the current one changes nothing")
        #expect(throws: PreviewError.self) { try documents.restore(version: 9, of: v1) }
    }

    /// A failed job is queued again with what was remembered against its file forgotten, so its
    /// renders are tried again; a job that did not fail is not.
    @Test(arguments: TestBackend.available) func aRetriedJobForgetsItsFilesFailures(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        let documents = DocumentService(backend: indexed.backend, logger: logger)
        let (stored, _) = try indexed.backend.queue.enqueue(try indexed.add(title: "scan", status: .pending))
        let (leased, _) = try #require(try indexed.backend.queue.lease(worker: "test", leaseSeconds: 60, kinds: [.preview]))
        let crash = PreviewError(.corrupt, "The file crashed the renderer.")
        let failed = try indexed.backend.queue.fail(leased, error: crash, retryable: false, recording: nil)
        try indexed.store.index.recordFailure(RenderFailure(key: "scan-thumbnail", sourceSha256: stored.sha256, error: crash))
        let other = try indexed.backend.queue.enqueue(try indexed.add(title: "letter", status: .pending)).job

        #expect(try documents.retryJob(id: try #require(other.id)) == false, "a queued job is not retried")
        #expect(try documents.retryJob(id: try #require(failed.id)))
        #expect(try indexed.backend.queue.job(id: try #require(failed.id))?.status == .queued)
        #expect(try indexed.store.index.failure(key: "scan-thumbnail") == nil, "the file's crash is forgotten")
        #expect(try documents.retryFailedJobs() == 0)
    }

    @Test(arguments: TestBackend.available) func relabellingMovesEveryVersion(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        let first = try indexed.add(type: "resume", title: "cv")
        try indexed.add(type: "resume", title: "cv")
        try indexed.add(type: "resume", title: "old cv")
        let renamed = try #require(try indexed.store.index.relabel(documentID: first.id, to: Relabelling(title: "CV 2026", type: "resume")))
        #expect(renamed.title == "CV 2026" && renamed.version == 1)
        #expect(try indexed.store.index.versions(of: first.id).map(\.title) == ["CV 2026", "CV 2026"])
        #expect(throws: LabelTaken.self) { try indexed.store.index.relabel(documentID: first.id, to: Relabelling(title: "old cv", type: "resume")) }
        #expect(try indexed.store.index.relabel(documentID: "no-such-id", to: Relabelling(title: "x", type: nil)) == nil)
    }

    /// A description and a school belong to a version: a new version keeps the latest's unless it
    /// says its own, a relabel gives them to the latest only. A text search finds the latest versions
    /// by a word of their title, description or file name, the same each way; `school` filters.
    @Test(arguments: TestBackend.available) func descriptionsAndSchoolsAreKeptPerVersionAndSearched(backend: TestBackend) throws {
        let indexed = try Indexed(backend)
        defer { indexed.folder.remove() }
        func add(_ title: String, filename: String, description: String = "", school: String? = nil, owner: String = "ana") throws -> Document {
            let content = Array("\(title)/\(UUID())".utf8)
            let hash = try indexed.store.blobs.put(bytes: content, as: .original)
            let record = Document(id: UUID().uuidString.lowercased(), owner: owner, type: nil, title: title, filename: filename,
                                        description: description, school: school, sha256: hash, kind: .pdf, mime: "application/pdf",
                                        size: content.count, facts: MediaFacts(), version: 0, previewStatus: .ready, createdAt: Date())
            return try indexed.store.index.insertVersion(record).document
        }
        let first = try add("Letter", filename: "coach.pdf", description: "From Coach Rivera, varsity", school: "Lakeside Prep")
        let second = try add("Letter", filename: "coach-2.pdf")
        #expect(second.version == 2 && second.description == "From Coach Rivera, varsity" && second.school == "Lakeside Prep",
                "a new version keeps the description and school it does not replace")
        let transcript = try add("Transcript", filename: "Transcript_Final.PDF", description: "Fall term", school: "North High")
        try add("Stats", filename: "stats.pdf", school: "North High", owner: "ben")

        let relabelled = try #require(try indexed.store.index.relabel(
            documentID: first.id, to: Relabelling(title: "Letter", type: nil, description: "All-state, two seasons", school: "Lakeside Prep")))
        #expect(relabelled.description == "From Coach Rivera, varsity", "version 1 keeps its own")
        #expect(try indexed.store.index.versions(of: first.id).map(\.description) == ["All-state, two seasons", "From Coach Rivera, varsity"])

        for search in [nil, TextSearch.walk, .lookUp, .walkStart] {
            func found(_ text: String, owner: String? = nil) throws -> Set<String> {
                Set(try indexed.all(DocumentQuery(owner: owner, containing: text), search: search).map(\.id))
            }
            #expect(try found("ALL-STATE") == [second.id], "the latest description, any case (\(String(describing: search)))")
            #expect(try found("rivera").isEmpty, "an earlier version's description is not the document's")
            #expect(try found("transcript_final") == [transcript.id], "the file name")
            #expect(try found("term") == [transcript.id])
            #expect(try found("letter") == [second.id], "the title")
            #expect(try found("letter all-state").isEmpty && (try found("seasons coach")).isEmpty, "no match across two fields")
            #expect(try found("lakeside") == [second.id], "the school")
            #expect(try found("north high", owner: "ana") == [transcript.id])
            #expect(try found("seasons lakeside").isEmpty, "no match across the description and the school")
        }
        #expect(Set(try indexed.all(DocumentQuery(school: "North High")).map(\.title)) == ["Transcript", "Stats"])
        #expect(try indexed.all(DocumentQuery(owner: "ana", school: "North High")).map(\.id) == [transcript.id])
        #expect(try indexed.all(DocumentQuery(school: "Lakeside Prep")).map(\.id) == [second.id])
    }
}
