import Crypto
import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPipeline
import PreviewPostgres
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

/// What every blob driver does alike: the folder and the object store.
@Suite struct BlobStorageContractTests {
    static func open(_ blobs: TestBlobs, _ folder: TemporaryFolder) async throws -> Store {
        try await TestBackend.sqlite.open(root: folder.url.appendingPathComponent("store"), blobs: blobs).store
    }

    @Test(arguments: TestBlobs.available) func storesReadsAndDeduplicates(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let bytes = Array(try Data(contentsOf: Fixtures.sample("image.webp")))
        let started = Date()
        let first = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        let second = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        #expect(first.hash == second.hash && first.hash == BlobHash.of(bytes) && first.size == bytes.count)
        #expect(await store.blobs.contains(first.hash))
        #expect(await !store.blobs.contains(BlobHash.of([1, 2, 3])))
        #expect(try await store.blobs.read(first.hash) == bytes)
        #expect(try await Array(Data(contentsOf: store.blobs.localFile(for: first.hash))) == bytes)
        #expect(try await store.blobs.verify(first.hash))
        let listed = try await store.blobs.allBlobs()
        #expect(listed.map(\.hash) == [first.hash] && listed.first?.size == bytes.count)
        // An object store keeps whole seconds: a second either side of the store.
        let modified = try #require(listed.first?.modified)
        #expect(modified >= started.addingTimeInterval(-1) && modified <= Date().addingTimeInterval(1), "the time it was stored: \(modified)")
        #expect(try store.blobs.leftoverTemporaries().isEmpty)
    }

    @Test(arguments: TestBlobs.available) func anOriginalOverADerivativeMakesItAnOriginal(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let hash = try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .derivative)
        #expect(await store.blobs.role(of: hash) == .derivative)
        #expect(try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .derivative) == hash)
        #expect(await store.blobs.role(of: hash) == .derivative)
        #expect(try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .original) == hash)
        #expect(await store.blobs.role(of: hash) == .original)
        #expect(try await store.blobs.allBlobs().count == 1)
    }

    @Test(arguments: TestBlobs.available) func theQuarantineKeepsWhatGCTookForItsGrace(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let kept = try await store.blobs.put(bytes: Array("kept".utf8), as: .original)
        let hash = try await store.blobs.put(bytes: Array("taken away".utf8), as: .derivative)
        try await store.blobs.quarantine(hash)
        let (removed, stillKept) = (await !store.blobs.contains(hash), await store.blobs.contains(kept))
        #expect(removed && stillKept)
        #expect(try await store.blobs.quarantined().map(\.hash) == [hash])
        try await store.blobs.unquarantine(hash)
        let (back, role) = (await store.blobs.contains(hash), await store.blobs.role(of: hash))
        #expect(back && role == .derivative)
        #expect(try await store.blobs.quarantined().isEmpty)
        try await store.blobs.quarantine(hash)
        #expect(try await store.blobs.purgeQuarantine(before: Date().addingTimeInterval(-3600)) == (0, 0), "still in its grace period")
        let purged = try await store.blobs.purgeQuarantine(before: Date().addingTimeInterval(60))
        #expect(purged.blobs == 1 && purged.bytes == 10)
        let emptied = try await store.blobs.quarantined().isEmpty
        let gone = await !store.blobs.contains(hash)
        #expect(emptied && gone)
        try await store.blobs.remove(kept)
        #expect(try await store.blobs.allBlobs().isEmpty)
    }

    @Test(arguments: TestBlobs.available) func documentsLiveAndAreCollected(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let outcome = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "letter", filename: "letter.pdf"))
        #expect(outcome.status == .ok, "\(outcome.error?.message ?? "")")
        let page = try await pipeline.preview(source: #require(outcome.sha256), kind: .pdf, request: RenderRequest(page: 3, width: 300))
        #expect(!page.cached)
        #expect(try await store.verify().isClean)
        let orphan = try await store.blobs.put(bytes: Array("nobody refers to me".utf8), as: .derivative)
        let collected = try await store.collectGarbage(grace: 0, dryRun: false, logger: Logger(label: "test"))
        #expect(collected.blobs == 1 && collected.bytes == 19)
        #expect(await !store.blobs.contains(orphan))
        #expect(try await store.verify().isClean)
    }
}
