import Benchmark
import BenchmarkInputs
import Foundation
import Logging
import PreviewCore
import PreviewPipeline
import PreviewStore

/// `Store:Put 1MB`: a new 1 MiB blob (hash, temporary file, fsync, rename, folder fsync).
/// `Store:CachedPreview`: what serving a stored preview costs: derivative key, index lookup, blob read.
let benchmarks: @Sendable () -> Void = {
    Benchmark("Store:Put 1MB", configuration: Inputs.configuration(maxIterations: 200)) { benchmark in
        let store = try PreviewStore.Store(root: Inputs.temporaryFolder("docpreview-bench-store"), offload: .forTests)
        defer { try? FileManager.default.removeItem(at: store.root) }
        var bytes = [UInt8](repeating: 0x5A, count: 1 << 20)
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            // New content every time, so nothing is deduplicated away.
            withUnsafeBytes(of: iteration) { bytes.replaceSubrange(0..<$0.count, with: $0) }
            blackHole(try store.blobs.put(bytes: bytes, as: .original))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Store:CachedPreview", configuration: Inputs.configuration(scalingFactor: .kilo)) { benchmark in
        let store = try PreviewStore.Store(root: Inputs.temporaryFolder("docpreview-bench-store"), offload: .forTests)
        defer { try? FileManager.default.removeItem(at: store.root) }
        let pipeline = DocumentPipeline(store: store, logger: Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() }))
        let photo = Inputs.samples.appendingPathComponent("photo-exif-orientation-6.jpg")
        let ingested = pipeline.ingest(photo, labels: DocumentLabels(title: "photo", filename: photo.lastPathComponent))
        guard let source = ingested.sha256 else { fatalError("the sample was not ingested: \(ingested.status)") }
        let request = RenderRequest()
        _ = try pipeline.preview(source: source, kind: .jpeg, request: request)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            guard let hit = try pipeline.cachedPreview(source: source, kind: .jpeg, request: request) else {
                fatalError("the preview just made is not in the store")
            }
            blackHole(try store.blobs.read(hit.resultSha256))
        }
        benchmark.stopMeasurement()
    }
}
