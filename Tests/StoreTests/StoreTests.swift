import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewPipeline
@testable import PreviewPostgres
import PreviewRenderers
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

private func makeStore(_ backend: TestBackend = .sqlite) async throws -> (Store, TemporaryFolder) {
    let folder = try TemporaryFolder()
    return await (try backend.open(root: folder.url.appendingPathComponent("store")).store, folder)
}

@Suite struct BlobStoreTests {
    @Test func contentAddressedAndDeduplicated() async throws {
        let (store, folder) = try await makeStore()
        defer { folder.remove() }
        let first = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        let second = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        #expect(first.hash == second.hash)
        #expect(first.hash == BlobHash.of(try Data(contentsOf: Fixtures.sample("image.webp"))))
        let path = try await store.blobs.localFile(for: first.hash).path
        #expect(path.hasSuffix("objects/sha256/\(first.hash.hex.prefix(2))/\(first.hash.hex.dropFirst(2).prefix(2))/\(first.hash.hex)"))
        #expect(try await store.blobs.allBlobs().count == 1)
        #expect(try store.blobs.leftoverTemporaries().isEmpty, "tmp/ is empty after writes")
        #expect(try await store.blobs.read(first.hash) == Array(try Data(contentsOf: Fixtures.sample("image.webp"))))
        #expect(try await store.blobs.verify(first.hash))
    }

    @Test(.blocking) func hashesOnlyFromValidHex() {
        #expect(BlobHash(hex: String(repeating: "a", count: 64)) != nil)
        #expect(BlobHash(hex: String(repeating: "A", count: 64))?.hex == String(repeating: "a", count: 64))
        #expect(BlobHash(hex: "../../etc/passwd") == nil)
        #expect(BlobHash(hex: String(repeating: "g", count: 64)) == nil)
        #expect(BlobHash(hex: String(repeating: "a", count: 63)) == nil)
    }

    @Test(arguments: TestBackend.available) func verifyFindsDamageAndMissingBlobs(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let outcome = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "letter", filename: "letter.pdf"))
        #expect(outcome.status == .ok)
        #expect(try await store.verify().isClean)

        let original = try #require(outcome.sha256)
        let url = try await store.blobs.localFile(for: original)
        chmod(url.path, 0o644)
        try Data("tampered".utf8).write(to: url)
        #expect(try await store.verify().damaged == [original.hex])
        try FileManager.default.removeItem(at: url)
        #expect(try await store.verify().missing == [original.hex])
    }

    @Test(arguments: TestBackend.available) func garbageCollectionSparesReferencedAndRecentBlobs(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        _ = await pipeline.ingest(Fixtures.sample("image.webp"), labels: DocumentLabels(title: "photo", filename: "photo.webp"))
        // A derivative whose row was never written (the process died between the two).
        let orphan = try await store.blobs.put(bytes: Array("nobody refers to me".utf8), as: .derivative)
        let before = try await store.blobs.allBlobs().count

        let young = try await store.collectGarbage(grace: 3600, dryRun: false, logger: Logger(label: "test"))
        #expect(young.blobs == 0, "an orphan younger than the grace period may be a write in flight")
        let dry = try await store.collectGarbage(grace: 0, dryRun: true, logger: Logger(label: "test"))
        #expect(dry.blobs == 1 && dry.bytes == 19)
        #expect(try await store.blobs.allBlobs().count == before)
        let real = try await store.collectGarbage(grace: 0, dryRun: false, logger: Logger(label: "test"))
        #expect(real.blobs == 1)
        #expect(await !store.blobs.contains(orphan))
        #expect(try await store.blobs.quarantined().map(\.hash) == [orphan], "kept in the quarantine for the grace period")
        #expect(try await store.blobs.allBlobs().count == before - 1)
        #expect(try await store.verify().isClean)
    }

    /// A gc cut short between quarantining a deleted document's blob and forgetting its rows leaves a
    /// store that verifies, whose `recover` brings nothing back, and that the next gc finishes.
    @Test(arguments: TestBackend.available) func aGcCutShortBringsNoDeletionBack(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let outcome = await pipeline.ingest(Fixtures.sample("image.webp"), labels: DocumentLabels(title: "photo", filename: "photo.webp"))
        let (id, original) = (try #require(outcome.documentID), try #require(outcome.sha256))
        _ = try await store.index.delete(documentID: id, version: nil)
        // Where a gc stopped by a refused request left it: the dead derivatives' rows forgotten, the
        // original quarantined, the document's rows still there.
        try await store.index.forgetDeadDerivatives()
        try await store.blobs.quarantine(original)
        let report = try await store.verify()
        #expect(report.missing.isEmpty && report.damaged.isEmpty && report.indexProblems.isEmpty, "\(report)")
        #expect(!report.unreferenced.contains { !$0.indexed && $0.role == .original }, "no original the index lost, for recover to bring back")
        #expect(try await store.index.indexedBlobs().contains(original))
        // Forced past the "more than half the store" guard: the deleted photo is all this store holds.
        _ = try await store.collectGarbage(grace: 0, dryRun: false, force: true, logger: Logger(label: "test"))
        #expect(try await !store.index.indexedBlobs().contains(original), "the next gc forgot the quarantined blob's rows")
        #expect(try await store.verify().isClean)
    }
}

@Suite struct PipelineTests {
    let logger = Logger(label: "test")

    /// A job calls its renderer child once: the thumbnail's render brings the facts; with the
    /// thumbnail made before, a probe is the one call.
    @Test func aVideoJobCallsTheRendererOnce() async throws {
        let (store, folder) = try await makeStore()
        defer { folder.remove() }
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, limits: Limits(), logger: logger)
        let pipeline = DocumentPipeline(store: store, isolation: pool, offload: .forTests, logger: logger)
        let (hash, size) = try await store.blobs.put(fileAt: Fixtures.sample("video-h264.mp4"))
        let document = try await store.index.insertVersion(
            Document(
                id: UUID().uuidString.lowercased(), owner: "ana", type: nil, title: "film", filename: "film.mp4", sha256: hash, kind: .mp4,
                mime: "video/mp4", size: size, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
        ).document
        try await pipeline.process(document)
        #expect(pool.calls == 1, "one render, no probe")
        let processed = try await #require(try store.index.document(id: document.id))
        #expect(processed.previewStatus == .ready && processed.durationSeconds != nil && processed.width != nil && processed.codec != nil)
        try await pipeline.process(document)
        #expect(pool.calls == 2, "a second run finds the thumbnail and probes once")
    }

    /// Ingesting a file (`ingest`, `batch`) calls its renderer child once too: the thumbnail, made
    /// before the original is stored, brings the facts. The same bytes under other labels find the
    /// thumbnail and probe; a file whose thumbnail fails is probed, and stored with the failure.
    @Test func anIngestCallsTheRendererOnce() async throws {
        let (store, folder) = try await makeStore()
        defer { folder.remove() }
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, limits: Limits(), logger: logger)
        let pipeline = DocumentPipeline(store: store, isolation: pool, offload: .forTests, logger: logger)
        let first = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", title: "film", filename: "film.mp4"))
        #expect(first.status == .ok && first.durationSeconds != nil && first.preview != nil, "\(first)")
        #expect(pool.calls == 1, "one render, no probe")
        let again = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", title: "film", filename: "film.mp4"))
        #expect(again.status == .ok && again.preview?.path == first.preview?.path)
        #expect(pool.calls == 2, "the thumbnail is found; a probe is the one call")
        // A PNG whose header is whole and whose pixels are cut off: the probe accepts it, the render does not.
        var png = try Data(contentsOf: Fixtures.sample("image-alpha.png"))
        png.removeLast(png.count / 2)
        let file = folder.url.appendingPathComponent("cut.png")
        try png.write(to: file)
        let cut = await pipeline.ingest(file, labels: DocumentLabels(owner: "ana", title: "cut", filename: "cut.png"))
        #expect(cut.status == .failed && cut.documentID != nil && cut.error?.code == "corrupt", "\(cut)")
        #expect(pool.calls == 4, "the render failed, then the probe")
    }

    @Test(arguments: TestBackend.available) func identicalUploadsShareOneBlob(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let a = await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", title: "clip A", filename: "a.mp4"))
        let b = await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", title: "clip B", filename: "b.mp4"))
        #expect(a.status == .ok && b.status == .ok)
        #expect(a.sha256 == b.sha256)
        #expect(a.documentID != b.documentID)
        #expect(a.preview?.path == b.preview?.path, "the thumbnail is rendered once and shared")
        #expect(try await store.blobs.allBlobs().count == 2, "one original, one thumbnail")
    }

    @Test(arguments: TestBackend.available) func sameTitleNewBytesIsANewVersion(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let type = DocumentRules.standard.type(id: "resume")
        let labels = DocumentLabels(owner: "ana", type: type, title: "Resume", filename: "resume.pdf")
        let first = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: labels)
        let again = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: labels)
        #expect(again.documentID == first.documentID && again.reused, "the same bytes again change nothing")
        let folderURL = folder.url.appendingPathComponent("v2.pdf")
        try (Data(contentsOf: Fixtures.sample("document-5-pages.pdf")) + Data("\n% revised\n".utf8)).write(to: folderURL)
        let second = await pipeline.ingest(folderURL, labels: labels)
        #expect(second.status == .ok)
        let versions = try await store.index.versions(of: try #require(first.documentID)).map(\.version).sorted()
        #expect(versions == [1, 2])
        #expect(try await store.index.statistics(owner: "ana").documents == 1)
    }

    @Test(arguments: TestBackend.available) func concurrentUploadsOfOneTitleGetConsecutiveVersions(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let failures = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<8 {
                group.addTask {
                    do {
                        let bytes = Array("version \(number)".utf8)
                        let record = Document(
                            id: UUID().uuidString, owner: "ana", type: "transcript", title: "Transcript",
                            filename: "t.txt", sha256: try await store.blobs.put(bytes: bytes, as: .original), kind: .text,
                            mime: "text/plain", size: bytes.count, facts: MediaFacts(), version: 0,
                            previewStatus: PreviewStatus.noPreview, createdAt: Date())
                        _ = try await store.index.insertVersion(record)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let latest = try await #require(try store.index.latestVersion(owner: "ana", type: "transcript", title: "Transcript"))
        #expect(try await store.index.versions(of: latest.id).map(\.version).sorted() == Array(1...8))
    }

    @Test(arguments: TestBackend.available) func pdfPagesAreRenderedOnlyWhenAskedAndOnlyOnce(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let outcome = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "doc", filename: "doc.pdf"))
        let source = try #require(outcome.sha256)
        let pageThree = RenderRequest(page: 3, width: 800)
        #expect(try await pipeline.cachedPreview(source: source, kind: .pdf, request: pageThree) == nil, "ingest renders the thumbnail only")
        let first = try await pipeline.preview(source: source, kind: .pdf, request: pageThree)
        #expect(!first.cached && first.record.width == 800)
        let second = try await pipeline.preview(source: source, kind: .pdf, request: pageThree)
        #expect(second.cached && second.record.resultSha256 == first.record.resultSha256)
        let pageOne = try await pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: 1, width: 800))
        #expect(pageOne.record.resultSha256 != first.record.resultSha256)
        await #expect {
            try await pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: 6))
        } throws: { ($0 as? PreviewError)?.code == .pageOutOfRange }
    }

    @Test(arguments: TestBackend.available) func nonPDFPagesShareOneKey(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let source = try await #require(pipeline.ingest(Fixtures.sample("image.webp"), labels: DocumentLabels(title: "p", filename: "p.webp")).sha256)
        #expect(try await pipeline.preview(source: source, kind: .webp, request: RenderRequest(page: 4, width: 512, height: 512)).cached)
    }

    @Test(arguments: TestBackend.available) func refusedAndUnreadableFilesAreNotStored(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let refused = await pipeline.ingest(Fixtures.sample("bad-zip-named.pdf"), labels: DocumentLabels(title: "x", filename: "x.pdf"))
        #expect(refused.status == .rejected && refused.error?.code == "content_mismatch")
        let encrypted = await pipeline.ingest(Fixtures.sample("bad-encrypted.pdf"), labels: DocumentLabels(title: "y", filename: "y.pdf"))
        #expect(encrypted.status == .failed && encrypted.error?.code == "encrypted")
        #expect(try await store.blobs.allBlobs().isEmpty)
        let bomb = await pipeline.ingest(Fixtures.sample("bad-zip-bomb.docx"), labels: DocumentLabels(title: "z", filename: "z.docx"))
        #expect(bomb.status == .rejected && bomb.error?.code == "zip_bomb")
        #expect(try await store.blobs.allBlobs().isEmpty)
        let office = await pipeline.ingest(Fixtures.sample("stats.xlsx"), labels: DocumentLabels(title: "stats", filename: "stats.xlsx"))
        #expect(office.status == .ok && office.preview != nil && office.documentID != nil)
    }

    /// Figures worked out by hand from the sample sizes.
    @Test(arguments: TestBackend.available) func statisticsMatchHandComputedFigures(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        func size(_ name: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: Fixtures.sample(name).path)[.size] as! Int }
        let resume = DocumentRules.standard.type(id: "resume")
        let stats = DocumentRules.standard.type(id: "stats_sheet")
        let video = DocumentRules.standard.type(id: "highlight_video")
        _ = await pipeline.ingest(
            Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(owner: "ana", type: resume, title: "cv", filename: "cv.pdf"))
        _ = await pipeline.ingest(
            Fixtures.sample("resume.docx"), labels: DocumentLabels(owner: "ana", type: resume, title: "cv2", filename: "cv2.docx"))
        _ = await pipeline.ingest(Fixtures.sample("stats.csv"), labels: DocumentLabels(owner: "ana", type: stats, title: "stats", filename: "s.csv"))
        _ = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", type: video, title: "hl", filename: "hl.mp4"))
        _ = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", type: video, title: "hl", filename: "hl.mp4"))

        let ana = try await store.index.statistics(owner: "ana")
        let anaLogical = try size("document-5-pages.pdf") + size("resume.docx") + size("stats.csv") + size("video-h264.mp4")
        #expect(ana.documents == 4 && ana.versions == 4)
        #expect(ana.byType == ["resume": 2, "stats_sheet": 1, "highlight_video": 1])
        #expect(ana.mostCommonType == "resume")
        #expect(ana.logicalBytes == anaLogical)
        #expect(ana.storedBytes == anaLogical)
        #expect(ana.previews == 6, "PDF and video thumbnails; docx and csv each a PDF pivot and its thumbnail")

        let all = try await store.index.statistics()
        #expect(all.documents == 5)
        #expect(all.byKind["mp4"] == 2)
        let videoSize = try size("video-h264.mp4")
        #expect(all.logicalBytes == anaLogical + videoSize)
        #expect(all.storedBytes == anaLogical, "the second video is stored once")
        #expect(abs(all.dedupRatio - Double(anaLogical + videoSize) / Double(anaLogical)) < 1e-9)
        #expect(all.previews == 6 && all.previewBytes > 0)
        #expect(all.mostCommonType == "highlight_video" || all.mostCommonType == "resume")
        #expect(try await store.index.statistics(owner: "nobody").dedupRatio == 0)
    }

    @Test(arguments: TestBackend.available) func cachedPreviewIsServedFromTheStore(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let source = try await #require(
            pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(title: "v", filename: "v.mp4")).sha256)
        let hit = try await #require(try pipeline.cachedPreview(source: source, kind: .mp4, request: .thumbnail))
        let bytes = try await store.blobs.read(hit.resultSha256)
        #expect(BlobHash.of(bytes) == hit.resultSha256)
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
    }
}

/// Opening one new store from several places at once (batch jobs in separate processes, a server and
/// its workers starting together) must migrate it exactly once.
@Suite struct StoreOpeningTests {
    @Test(arguments: TestBackend.available) func concurrentFirstOpensMigrateOnce(backend: TestBackend) async throws {
        for _ in 0..<10 {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let database = try await backend.freshDatabase()
            let failures = Locked<[String]>([])
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        do {
                            _ = try await StoreBackend(root: folder.url, database: database, offload: .forTests, logger: Logger(label: "test"))
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
        }
    }

    /// A host that opens the store while another migrates it waits for that migration, however long
    /// it takes: neither the wait nor a migration's statements are cut at a statement's deadline.
    @Test(.enabled(if: TestBackend.available.contains(.postgres))) func anOpeningWaitsOutAnotherHostsMigration() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try #require(try await TestBackend.postgres.freshDatabase())
        let other = try await PostgresConnections(url: database, size: 2, logger: Logger(label: "test"))
        try await other.withConnection { migrating in
            try await migrating.query("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))")
            let opening = Task {
                try await StoreBackend(
                    root: folder.url, database: database, offload: .forTests, statementTimeout: .seconds(1),
                    logger: Logger(label: "test"))
            }
            try await waitUntilAsync("the opening to wait for the migration's lock") {
                try await other.query(
                    """
                    SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """)[0]["n"].decode(Int.self) == 1
            }
            try await Task.sleep(for: .seconds(2))  // the pause is the test: the lock held past the opening's 1 s deadline
            try await migrating.query("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))")
            let backend = try await opening.value
            #expect(try await backend.store.index.statistics().documents == 0)
        }
    }
}

/// The PostgreSQL driver outlives its connections: the server ending them (a restart, a failover,
/// an administrator) costs no more than the calls in flight.
@Suite(.blocking, .enabled(if: TestBackend.available.contains(.postgres)))
struct PostgresConnectionTests {
    @Test func connectionsEndedByTheServerAreReplaced() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let store = try await StoreBackend(root: folder.url, database: database, offload: .forTests, logger: Logger(label: "test")).store
        #expect(try await store.index.statistics().documents == 0)
        let administrator = try await PostgresConnections(url: database, size: 1, logger: Logger(label: "test"))
        let ended = try await administrator.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            """)
        #expect(!ended.isEmpty, "the store's connection was ended")
        try await waitUntilAsync("the ended connections to be gone from the server") {
            try await administrator.query(
                """
                SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """
            ).first?[0].decode(Int.self) == 0
        }
        // the store's side reads the server's close a moment later: its pool offers no event to wait for
        try await Task.sleep(for: .milliseconds(200))
        let started = Date()
        #expect(try await store.index.statistics().documents == 0, "answered on a new connection")
        // The query deadline is 30 s: an answer well before it came from a new connection, not a timed-out one.
        #expect(Date().timeIntervalSince(started) < 25, "not after waiting out the query deadline")
    }

    /// Two transactions that lock two rows in opposite orders deadlock; PostgreSQL ends one, which is
    /// run again and succeeds: neither caller sees the conflict (the counters' rows can meet this way).
    @Test func aTransactionEndedByADeadlockRunsAgain() async throws {
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let connections = try await PostgresConnections(url: database, size: 2, logger: Logger(label: "test"))
        try await connections.query("CREATE TABLE pair (id int PRIMARY KEY, n int NOT NULL)")
        try await connections.query("INSERT INTO pair VALUES (1, 0), (2, 0)")
        let attempts = Mutex(0)
        let locked = Mutex(0)
        let failures = Locked<[String]>([])
        /// Locks row `first`, then (on the first attempts, once the other holds its row) row `second`.
        let lock: @Sendable (Int, Int) async -> Void = { first, second in
            do {
                try await connections.transaction { session in
                    let attempt = attempts.withLock { count in
                        count += 1
                        return count
                    }
                    try await session.query("UPDATE pair SET n = n + 1 WHERE id = \(first)")
                    if attempt <= 2 {
                        locked.withLock { $0 += 1 }
                        try await waitUntilAsync("both rows locked") { locked.withLock { $0 } >= 2 }
                    }
                    try await session.query("UPDATE pair SET n = n + 1 WHERE id = \(second)")
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        async let one: Void = lock(1, 2)
        async let other: Void = lock(2, 1)
        _ = await (one, other)
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(attempts.withLock { $0 } == 3, "one of the two ran again")
        let totals = try await connections.query("SELECT sum(n)::int FROM pair").first?[0].decode(Int.self)
        #expect(totals == 4, "each transaction's two updates, once")
    }
}
