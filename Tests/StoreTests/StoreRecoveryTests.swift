import Foundation
import GRDB
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewDomain
@testable import PreviewPipeline
import PreviewPostgres
import PreviewStore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// An index that lost rows: `verify` finds it, `gc` refuses to make the loss permanent, `recover`
/// makes documents of the originals again. On both backends.
@Suite struct StoreRecoveryTests {
    let logger = Logger(label: "test")

    /// Makes the index forget `documents` the way a lost write-ahead log does: their rows, their
    /// derivatives' rows and their blobs' rows are gone; the files stay.
    private func lose(_ documents: [Document], in store: Store) async throws {
        for document in documents { _ = try await store.index.delete(documentID: document.id, version: nil) }
        try await store.index.forgetDeadDerivatives()
        _ = try await store.index.forgetBlobs(ifUnused: try store.blobs.allBlobs().map(\.hash))
    }

    /// An original stored for a write whose rows were refused (the database down, a crash) was never
    /// acknowledged: `verify` lists it as an orphan but passes, `recover` leaves it, `gc` collects it
    /// without refusing; a committed write leaves no mark. In both blob stores.
    @Test(arguments: TestBlobs.available) func aRefusedWriteLeavesAnOrphanNotALoss(blobs: TestBlobs) async throws {
        struct Refused: Error {}
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await TestBackend.sqlite.open(root: folder.url.appendingPathComponent("store"), blobs: blobs)
        let store = opened.store
        let documents = DocumentService(backend: opened, offload: .forTests, logger: logger)
        let pipeline = documents.pipeline
        let refused = try store.blobs.stage(fileAt: Fixtures.sample("document-5-pages.pdf"))
        let orphan = try refused.finish()
        await #expect(throws: Refused.self) { try await store.storeOriginal(refused) { throw Refused() } }
        let (orphanKept, marks) = (await store.blobs.contains(orphan), try await store.blobs.pendingMarks())
        #expect(orphanKept && marks.map(\.hash) == [orphan])
        let accepted = try await #require(
            pipeline.ingest(
                Fixtures.sample("image.webp"),
                labels: DocumentLabels(owner: "ana", title: "accepted", filename: "a.webp")
            ).documentID)
        #expect(try await store.blobs.pendingMarks().map(\.hash) == [orphan], "a committed write leaves no mark")

        let report = try await store.verify()
        #expect(report.isClean && report.unreferenced.map(\.sha256) == [orphan.hex] && report.unreferenced[0].isOrphan, "\(report)")
        let recovery = try await documents.recover(includingQuarantine: false)
        #expect(recovery.recovered.isEmpty && recovery.orphans == 1)

        let collected = try await store.collectGarbage(grace: 0, dryRun: false, logger: logger)
        let (orphanGone, marksGone) = (await !store.blobs.contains(orphan), try await store.blobs.pendingMarks().isEmpty)
        #expect(collected.blobs == 1 && orphanGone && marksGone)
        let (acceptedDocument, verified) = (try await store.index.document(id: accepted), try await store.verify())
        #expect(acceptedDocument != nil && verified.unreferenced.isEmpty)
    }

    @Test(arguments: TestBackend.available) func lostRowsAreFoundRefusedAndRecovered(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await backend.open(root: folder.url.appendingPathComponent("store"))
        let (store, queue) = (opened.store, opened.queue)
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        func ingest(_ sample: String) async throws -> Document {
            let outcome = await pipeline.ingest(Fixtures.sample(sample), labels: DocumentLabels(owner: "ana", title: sample, filename: sample))
            let id = try #require(outcome.documentID)
            return try await #require(try store.index.document(id: id))
        }
        let lost = await [try ingest("document-5-pages.pdf"), try ingest("image.webp"), try ingest("video-h264.mp4")]
        let deleted = try await ingest("image-16bit.png")
        try await lose(lost, in: store)
        _ = try await store.index.delete(documentID: deleted.id, version: nil)
        let blobsBefore = try await store.blobs.allBlobs().count

        let report = try await store.verify()
        #expect(!report.isClean)
        let lostOriginals = report.unreferenced.filter { !$0.indexed && $0.role == .original }
        #expect(Set(lostOriginals.map(\.sha256)) == Set(lost.map(\.sha256.hex)), "each original the index lost, with its size")
        #expect(lostOriginals.allSatisfy { blob in lost.contains { $0.sha256.hex == blob.sha256 && $0.size == blob.size } })
        #expect(report.unreferenced.filter { !$0.indexed && $0.role == .derivative }.count == 3, "their thumbnails")
        #expect(report.unreferenced.filter(\.indexed).map(\.sha256).contains(deleted.sha256.hex), "a deleted document awaits gc")
        #expect(report.damaged.isEmpty && report.missing.isEmpty && report.indexProblems.isEmpty)

        await #expect(throws: CollectRefusal.self, "gc must not make the loss permanent") {
            try await store.collectGarbage(grace: 0, dryRun: true, logger: logger)
        }
        await #expect(throws: CollectRefusal.self) { try await store.collectGarbage(grace: 0, dryRun: false, logger: logger) }
        #expect(try await store.blobs.allBlobs().count == blobsBefore, "a refusal removes nothing")

        let documents = DocumentService(backend: opened, offload: .forTests, logger: logger)
        let recovery = try await documents.recover(includingQuarantine: false)
        #expect(Set(recovery.recovered.map(\.sha256)) == Set(lost.map(\.sha256.hex)))
        #expect(recovery.derivatives == 3 && recovery.damaged.isEmpty)
        #expect(recovery.deleted == 2, "the deleted document's original and thumbnail are not brought back")
        for recovered in recovery.recovered {
            let document = try await #require(try store.index.document(id: recovered.documentID))
            #expect(document.owner == "recovered" && document.title == "\(document.kind)-\(document.sha256.hex.prefix(12))")
            #expect(try await queue.latestJob(documentID: document.id)?.status == .queued, "queued for its facts and previews")
            try await pipeline.process(document)
        }
        let pdf = try #require(recovery.recovered.first { $0.kind == "pdf" })
        #expect(try await store.index.document(id: pdf.documentID)?.facts.pages == 5, "facts probed again")
        #expect(try await documents.recover(includingQuarantine: false).recovered.isEmpty, "a second run finds nothing")

        let after = try await store.verify()
        #expect(
            after.unreferenced.count == 2 && after.unreferenced.allSatisfy(\.indexed),
            "the previews made again are the blobs that were there: only the deleted document's remain")
        let collected = try await store.collectGarbage(grace: 0, dryRun: false, logger: logger)
        let stillThere = await store.blobs.contains(lost[0].sha256)
        #expect(collected.blobs == 2 && stillThere)
        #expect(try await store.verify().isClean)
    }

    @Test(arguments: TestBackend.available) func gcKeepsMostOfTheStoreAndQuarantines(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await backend.open(root: folder.url.appendingPathComponent("store"))
        let store = opened.store
        let documents = DocumentService(backend: opened, offload: .forTests, logger: logger)
        let pipeline = documents.pipeline
        _ = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "letter", filename: "letter.pdf"))
        let film = await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(title: "film", filename: "film.mp4"))
        _ = try await store.index.delete(documentID: try #require(film.documentID), version: nil)

        await #expect(throws: CollectRefusal.self, "the film is most of the store's bytes") {
            try await store.collectGarbage(grace: 0, dryRun: false, logger: logger)
        }
        let forced = try await store.collectGarbage(grace: 0, dryRun: false, force: true, logger: logger)
        #expect(forced.blobs == 2 && forced.purged == 0)
        let filmHash = try #require(film.sha256)
        let quarantined = await Set(try store.blobs.quarantined().map(\.hash))
        await #expect(!store.blobs.contains(filmHash) && quarantined.contains(filmHash))
        #expect(try await store.verify().isClean)
        #expect(try await store.collectGarbage(grace: 3600, dryRun: false, logger: logger).purged == 0, "kept for the grace period")

        let recovery = try await documents.recover(includingQuarantine: true)
        #expect(recovery.unquarantined == 2 && recovery.derivatives == 1)
        #expect(recovery.recovered.map(\.sha256) == [filmHash.hex], "a removal by mistake can be undone within the grace period")
        #expect(try await store.blobs.quarantined().isEmpty)
    }

    @Test func anIndexThatFailsItsIntegrityCheckStopsGC() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.appendingPathComponent("store")
        let store = try Store(root: root, offload: .forTests)
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        _ = await pipeline.ingest(Fixtures.sample("image.webp"), labels: DocumentLabels(title: "photo", filename: "photo.webp"))
        let index = try #require(store.index as? SQLiteIndex)
        try await index.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "DELETE FROM blobs")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let report = try await store.verify()
        #expect(!report.indexProblems.isEmpty && !report.isClean, "rows naming blob rows that are gone")
        await #expect(throws: CollectRefusal.self) { try await store.collectGarbage(grace: 0, dryRun: false, logger: logger) }
    }
}

/// `verify` checks every kept ladder's playlists against their media's size: a ladder recorded
/// half written (a rung whose playlist names bytes past its media's end) is a problem, an intact one is not.
@Suite struct LadderVerifyTests {
    @Test(arguments: TestBackend.available) func aHalfWrittenLadderIsFound(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let videoID = try #require(
            await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", title: "clip", filename: "c.mp4"))
                .documentID)
        let video = try #require(try await store.index.document(id: videoID))
        /// Records a ladder of one rung whose playlist lists `segment` (`length@offset`) of 1,000 bytes of media.
        func record(segment: String, tag: String) async throws {
            func keep(_ text: String, _ file: String, mime: String) async throws -> BlobHash {
                let hash = try await store.blobs.put(bytes: Array(text.utf8), as: .derivative)
                try await store.index.recordDerivative(
                    DerivativeRecord(
                        key: "test-\(tag)-\(file)", sourceSha256: video.sha256, operation: .playback, parameters: file, renderer: "test",
                        resultSha256: hash, width: 0, height: 0, createdAt: Date()), resultSize: text.utf8.count, resultMime: mime)
                return hash
            }
            let media = try await keep(String(repeating: tag, count: 1000), "hls/360p.mp4", mime: "video/mp4")
            let playlist = try await keep(
                """
                #EXTM3U
                #EXT-X-MAP:URI="360p.mp4",BYTERANGE="100@0"
                #EXTINF:2.0,
                #EXT-X-BYTERANGE:\(segment)
                360p.mp4
                """, "hls/360p.m3u8", mime: "application/vnd.apple.mpegurl")
            let rung = VideoLadder.Rung(name: "360p", width: 640, height: 360, codecs: "avc1.64001e", bandwidth: 1, averageBandwidth: 1)
            let manifest = PlaybackManifest(ladder: .init(rungs: [rung], files: ["360p.m3u8": playlist, "360p.mp4": media], size: 1000))
            _ = try await keep(String(decoding: try StableJSON.encode(manifest), as: UTF8.self), "playback.json", mime: "application/json")
        }
        try await record(segment: "900@100", tag: "a")
        #expect(try await pipeline.verify(rehash: true).ladderProblems.isEmpty)
        try await record(segment: "901@100", tag: "b")
        let problems = try await pipeline.verify(rehash: true).ladderProblems
        #expect(problems.count == 1 && problems[0].contains("360p.m3u8") && problems[0].contains("past the end"), "\(problems)")
    }
}
