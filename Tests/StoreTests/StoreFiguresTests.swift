import Foundation
import GRDB
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
@testable import PreviewDomain
import PreviewPipeline
import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// The statistics kept by triggers agree with a recount from the rows after every kind of change,
/// on both backends; so do the listings, which read the kept `latest` and `live_shares` columns.
@Suite struct StoreFiguresTests {
    static let schools: [String?] = [nil, "North High", "Lakeside Prep"]

    @Test(arguments: TestBackend.available) func keptFiguresMatchARecountThroughEveryChange(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await backend.open(root: folder.url.appendingPathComponent("store"))
        let (store, queue) = (opened.store, opened.queue)
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let service = DocumentService(backend: opened, offload: .forTests, logger: Logger(label: "test"))
        let owners = ["ana", "ben", ""]
        var countedSchools = false
        func check(_ step: String) async throws {
            for owner in [nil] + owners.map(Optional.some) {
                var kept = try await store.index.statistics(owner: owner)
                var recounted = try await store.index.recountStatistics(owner: owner)
                (kept.evictedPreviews, recounted.evictedPreviews) = (nil, nil)
                #expect(kept == recounted, "\(step), owner \(owner ?? "(all)")")
                countedSchools = countedSchools || !recounted.bySchool.isEmpty
                let listed = try await store.index.list(DocumentQuery(owner: owner, limit: DocumentQuery.maxLimit)).documents
                let shared = try await store.index.list(DocumentQuery(owner: owner, shared: true, limit: DocumentQuery.maxLimit)).documents
                let mostShared = try await store.index.list(DocumentQuery(owner: owner, sort: .mostShared, limit: DocumentQuery.maxLimit)).documents
                #expect(listed.count == recounted.documents && shared.count == recounted.sharedDocuments, "\(step), owner \(owner ?? "(all)")")
                for document in listed { await #expect(try store.index.versions(of: document.id).first?.id == document.id, "\(step): latest") }
                var liveCounts: [Int] = []
                for document in mostShared {
                    liveCounts.append(
                        try await store.index.shares(ofDocument: document.id).filter { $0.isLive() }
                            .count)
                }
                #expect(liveCounts == liveCounts.sorted(by: >) && Set(mostShared.map(\.id)) == Set(listed.map(\.id)), "\(step): most shared")
            }
        }
        /// Shares one of the document's versions, pinned or not, live or already expired.
        func share(_ document: Document, expired: Bool, pinned: Bool = Bool.random()) async throws -> ShareRecord {
            let share = ShareRecord(
                id: UUID().uuidString, tokenSha256: UUID().uuidString, documentID: document.id, version: pinned ? document.version : nil,
                label: "school", passwordHash: nil, allowDownload: true, createdAt: Date(),
                expiresAt: expired ? Date(timeIntervalSinceNow: -1) : Bool.random() ? Date(timeIntervalSinceNow: 3600) : nil)
            try await store.index.insertShare(share)
            return share
        }
        var shares: [ShareRecord] = []
        try await check("empty")
        var generator = SystemRandomNumberGenerator()
        var documents: [Document] = []
        // Real files, so previews and an office pivot with its pages are made.
        for (index, sample) in ["document-5-pages.pdf", "image.webp", "office-roster.csv", "video-h264.mp4", "image.webp"].enumerated() {
            let labels = DocumentLabels(owner: owners[index % owners.count], title: "file \(index % 3)", filename: sample)
            let outcome = await pipeline.ingest(Fixtures.sample(sample), labels: labels)
            let id = try #require(outcome.documentID)
            await documents.append(try #require(try store.index.document(id: id)))
            try await check("ingest \(sample)")
        }
        let csv = documents[2]
        _ = try await pipeline.preview(source: csv.sha256, kind: .csv, request: RenderRequest(page: 1, width: 1024, height: 1024))
        try await check("a page of an office pivot")
        let figures = try await store.index.statistics()
        #expect(figures.documents == 3 && figures.versions == 4 && figures.previews == 6 && figures.storedBytes > 0, "\(figures)")
        // Version 1 of ana's "file 0" shared, then its version 2 deleted: the share keeps the document shared.
        #expect(documents[0].version == 1 && documents[3].version == 2 && documents[3].title == documents[0].title)
        await shares.append(try share(documents[0], expired: false, pinned: true))
        try await check("a version shared")
        _ = try await store.index.delete(documentID: documents[3].id, version: 2)
        try await check("the later version deleted")
        #expect(try await store.index.statistics(owner: "ana").sharedDocuments == 1)
        for round in 0..<80 {
            let owner = owners.randomElement(using: &generator)!
            switch Int.random(in: 0..<8, using: &generator) {
            case 6:
                guard let shared = documents.randomElement(using: &generator),
                    let current = try await store.index.versions(of: shared.id).randomElement(using: &generator)
                else { continue }
                await shares.append(try share(current, expired: Int.random(in: 0..<4, using: &generator) == 0))
            case 7:
                guard let revoked = shares.randomElement(using: &generator) else { continue }
                _ = try await store.index.revokeShare(id: revoked.id)
            case 0, 1:
                let content = Array("\(owner) \(round) \(Int.random(in: 0..<4, using: &generator))".utf8)
                let hash = try await store.blobs.put(bytes: content, as: .original)
                let record = Document(
                    id: UUID().uuidString.lowercased(), owner: owner, type: ["", "resume", "transcript"].randomElement(using: &generator)!,
                    title: "note \(Int.random(in: 0..<5, using: &generator))", filename: "n.txt",
                    school: Self.schools.randomElement(using: &generator)!, sha256: hash,
                    kind: [FileKind.text, .pdf].randomElement(using: &generator)!, mime: "text/plain", size: content.count, facts: MediaFacts(),
                    version: 0, previewStatus: .noPreview, createdAt: Date())
                await documents.append(try queue.enqueue(record).document)
            case 2:
                guard let victim = documents.randomElement(using: &generator) else { continue }
                _ = try await store.index.delete(documentID: victim.id, version: Bool.random(using: &generator) ? victim.version : nil)
            case 3:
                guard let victim = documents.randomElement(using: &generator), let latest = try await store.index.versions(of: victim.id).first else {
                    continue
                }
                // A new name, or only a new school for the latest version.
                let renamed = Bool.random(using: &generator)
                _ = try? await store.index.relabel(
                    documentID: victim.id,
                    to: Relabelling(
                        title: renamed ? "renamed \(round)" : latest.title,
                        type: renamed ? ["", "resume", "stats"].randomElement(using: &generator)! : latest.type,
                        school: Self.schools.randomElement(using: &generator)!))
            case 4:
                if let restorable = documents.randomElement(using: &generator) {
                    do {
                        _ = try await service.restore(version: 1, of: restorable.id)
                    } catch let error as PreviewError where error.code == .notFound {
                        // Its first version was deleted.
                    }
                }
            default:
                _ = try await store.evictPreviews(downTo: 0)
                _ = try await store.index.forgetDeadDerivatives()
            }
            try await check("round \(round)")
        }
        #expect(countedSchools, "the rounds gave documents schools")
        #expect(try await store.verify().indexProblems.isEmpty, "verify compares them too")
    }
}

/// A store indexed before the kept `latest` and `live_shares` columns and the search index gets them from its rows.
@Suite struct CurrentDocumentsMigrationTests {
    @Test func anOlderStoreIsBackfilled() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hash = BlobHash.of(Data("older".utf8)).hex
        let index = try await olderIndex(upTo: "v14-downloads-per-device", in: folder) { db in
            try db.execute(
                sql: "INSERT INTO blobs (sha256, size, mime, created_at) VALUES (?, 10, 'application/pdf', '2026-01-01 00:00:00.000')",
                arguments: [hash])
            for (id, title, version) in [("a1", "Alpha", 1), ("a2", "Alpha", 2), ("b1", "Bravo", 1), ("c1", "Charlie", 1)] {
                try db.execute(
                    sql: """
                        INSERT INTO documents (id, owner, type, title, title_key, filename, sha256, kind, mime, size, version, preview_status, \
                        created_at)
                        VALUES (?, 'ana', '', ?, lower(?), 'f.pdf', ?, 'pdf', 'application/pdf', 10, ?, 'ready', '2026-01-01 00:00:00.000')
                        """, arguments: [id, title, title, hash, version])
            }
            for (document, status) in [("a1", "done"), ("a2", "done"), ("b1", "failed")] {
                try db.execute(
                    sql: """
                        INSERT INTO jobs (document_id, status, available_at, created_at, updated_at)
                        VALUES (?, ?, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')
                        """, arguments: [document, status])
            }
            // A: a live share of its first version; B: one revoked, one expired; C: none.
            for (id, document, revoked, expires) in [
                ("s1", "a1", nil, "2999-01-01 00:00:00.000"), ("s2", "b1", "2026-01-02 00:00:00.000", nil),
                ("s3", "b1", nil, "2026-01-02 00:00:00.000")
            ] as [(String, String, String?, String?)] {
                try db.execute(
                    sql: """
                        INSERT INTO shares (id, token_sha256, document_id, label, allow_download, created_at, revoked_at, expires_at)
                        VALUES (?, ?, ?, 'school', 1, '2026-01-01 00:00:00.000', ?, ?)
                        """, arguments: [id, id, document, revoked, expires])
            }
        }
        #expect(try await index.statistics(owner: "ana").sharedDocuments == 1)
        #expect(try await index.statistics() == index.recountStatistics(owner: nil))
        #expect(try await index.list(DocumentQuery(sort: .title)).documents.map(\.id) == ["a2", "b1", "c1"])
        #expect(try await index.list(DocumentQuery(shared: true)).documents.map(\.id) == ["a2"])
        #expect(try await index.list(DocumentQuery(containing: "RAV"), search: .lookUp).documents.map(\.id) == ["b1"])
        #expect(try await index.list(DocumentQuery(containing: "F.PDF"), search: .lookUp).documents.count == 3, "file names are searched too")
        let jobs: [JobRecord.Status: Int] = try await index.statusCounts(in: "jobs")
        #expect(jobs[.done] == 2 && jobs[.failed] == 1 && jobs[.queued] == 0)
    }
}
