import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPipeline
@testable import PreviewPostgres
import PreviewRenderers
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

func makeStore(_ backend: TestBackend = .sqlite) async throws -> (Store, TemporaryFolder) {
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
