import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
@testable import PreviewPipeline
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

/// The store keeps strangers' documents from other local users, and a batch reads exactly the
/// files its walk found, however the folder changes underneath it.
@Suite struct StoreSafetyTests {
    @Test(arguments: TestBackend.available) func aNewStoreIsOwnerOnly(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.appendingPathComponent("store")
        let store = try await backend.open(root: root).store
        _ = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        let writer = try BlobWriter(storage: store.blobs)
        try writer.write(Data("in flight".utf8))
        var checked = 0
        for path in [root.path] + (FileManager.default.subpaths(atPath: root.path) ?? []).map({ root.path + "/" + $0 }) {
            var info = stat()
            #expect(lstat(path, &info) == 0)
            #expect(info.st_mode & 0o077 == 0, "\(path) is mode \(String(info.st_mode & 0o777, radix: 8))")
            checked += 1
        }
        #expect(checked >= (backend == .sqlite ? 10 : 7), "root, objects/sha256/ab/cd, the blob, tmp/ and its file, the index")
        var info = stat()
        let blob = try await store.blobs.localFile(for: BlobHash.of(try Data(contentsOf: Fixtures.sample("image.webp")))).path
        #expect(stat(blob, &info) == 0 && info.st_mode & 0o777 == 0o400)
    }

    /// A walked file is swapped between the walk and the read: for a symlink to a secret outside the
    /// folder, for a FIFO (which would block a plain open), for another, larger file; and a file
    /// grows past the limit in place. None of the swapped-in bytes is stored; nothing hangs.
    @Test(arguments: TestBackend.available) func filesSwappedAfterTheWalkAreNotRead(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let batch = folder.url.appendingPathComponent("batch")
        try FileManager.default.createDirectory(at: batch, withIntermediateDirectories: true)
        let image = try Data(contentsOf: Fixtures.sample("image.webp"))
        for name in ["link.webp", "fifo.webp", "bigger.webp", "grows.webp"] { try image.write(to: batch.appendingPathComponent(name)) }
        let secret = try folder.file("secret.webp", Array(try Data(contentsOf: Fixtures.sample("image-alpha.png"))))
        let entries = try DirectoryWalker.walk(batch).entries
        #expect(entries.count == 4)

        func path(_ name: String) -> String { batch.appendingPathComponent(name).path }
        try FileManager.default.removeItem(atPath: path("link.webp"))
        try FileManager.default.createSymbolicLink(atPath: path("link.webp"), withDestinationPath: secret.path)
        try FileManager.default.removeItem(atPath: path("fifo.webp"))
        #expect(mkfifo(path("fifo.webp"), 0o600) == 0)
        // The walked file stays alive under another name, so the new one cannot reuse its inode.
        try FileManager.default.linkItem(atPath: path("bigger.webp"), toPath: folder.url.appendingPathComponent("walked.webp").path)
        try (image + Data(count: 200_000)).write(to: folder.url.appendingPathComponent("bigger.webp"))
        #expect(rename(folder.url.appendingPathComponent("bigger.webp").path, path("bigger.webp")) == 0)
        let growing = try FileHandle(forWritingTo: batch.appendingPathComponent("grows.webp"))
        try growing.seekToEnd()
        try growing.write(contentsOf: Data(count: 200_000))
        try growing.close()

        var limits = Limits()
        limits.maxFileBytes = image.count + 1000
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, configuration: Configuration(limits: limits), offload: .forTests, logger: Logger(label: "test"))
        var codes: [String: String] = [:]
        for entry in entries {
            let labels = DocumentLabels(owner: "", type: nil, title: entry.relativePath, filename: entry.url.lastPathComponent)
            let outcome = await pipeline.ingest(entry.source, labels: labels, reportedPath: entry.relativePath, walked: entry.file)
            codes[entry.relativePath] = outcome.error?.code ?? outcome.status.rawValue
        }
        #expect(codes == ["link.webp": "not_found", "fifo.webp": "unsupported_type", "bigger.webp": "not_found", "grows.webp": "file_too_large"])
        #expect(try await store.blobs.allBlobs().isEmpty, "nothing swapped in was stored")
        #expect(try store.blobs.leftoverTemporaries().isEmpty)
    }
}

/// `gc` beside writers that reuse bytes stored long ago (and unreferenced until now): no row may
/// end up naming a blob `gc` removed.
@Suite struct CollectorRaceTests {
    @Test(arguments: TestBackend.available) func gcNeverRemovesABlobAWriterIsReusing(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let count = 150
        var files: [URL] = []
        for index in 0..<count {
            let bytes = Array(String(repeating: "transcript line \(index)\n", count: 20).utf8)
            let hash = try await store.blobs.put(bytes: bytes, as: .original)
            // Stored two hours ago, referenced by nothing: exactly what gc removes.
            var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
            #expect(await utimensat(AT_FDCWD, try store.blobs.localFile(for: hash).path, &times, 0) == 0)
            files.append(try folder.file("t\(index).txt", bytes))
        }
        let writing = Atomic<Bool>(true)
        let collector = Task {
            while writing.load(ordering: .acquiring) {
                _ = try? await store.collectGarbage(grace: 3600, dryRun: false, force: true, logger: Logger(label: "gc"))
                await Task.yield()
            }
        }
        for (index, file) in files.enumerated() {
            let outcome = await pipeline.ingest(file, labels: DocumentLabels(owner: "o", title: "t\(index)", filename: "t\(index).txt"))
            #expect(outcome.status == .ok, "\(outcome.error?.message ?? "")")
        }
        writing.store(false, ordering: .releasing)
        await collector.value
        let report = try await store.verify()
        #expect(report.missing.isEmpty, "gc removed \(report.missing.count) blobs that documents name")
        #expect(report.blobsChecked >= count, "each original, with its pivot and thumbnail")
    }
}

/// The derivative cache key is the request's own encoding: every field is in it.
@Suite(.blocking) struct DerivativeKeyTests {
    @Test func everyRequestFieldChangesTheKeyAndTheParametersDecodeBack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: try Store(root: folder.url, offload: .forTests), offload: .forTests, logger: Logger(label: "test"))
        let source = BlobHash.of(Data("x".utf8))
        let renderer = try #require(pipeline.renderers.renderer(for: .pdf, on: .forTests))
        let base = RenderRequest(page: 2, width: 300, height: nil, format: .png, quality: 70)
        var variants = [base]
        for change in [
            { (r: inout RenderRequest) in r.page = 3 }, { $0.width = 301 }, { $0.height = 200 }, { $0.format = .webp },
            { $0.quality = 71 }
        ] {
            var request = base
            change(&request)
            variants.append(request)
        }
        let keys = try variants.map { try pipeline.derivativeKey(source: source, kind: .pdf, request: $0, renderer: renderer) }
        #expect(Set(keys.map(\.hash)).count == variants.count)
        for (request, key) in zip(variants, keys) {
            #expect(try JSONDecoder().decode(RenderRequest.self, from: Data(key.parameters.utf8)) == request)
        }
    }
}
