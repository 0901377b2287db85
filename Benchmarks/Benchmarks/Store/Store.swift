import Benchmark
import BenchmarkInputs
import Foundation
import Logging
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `Store:Put 1MB`: a new 1 MiB blob (hash, temporary file, fsync, rename, folder fsync).
/// `Store:CachedPreview`: what serving a stored preview costs through the document service: the
/// answer (derivative key, index lookup) and the blob read.
let benchmarks: @Sendable () -> Void = {
    Benchmark("Store:Put 1MB", configuration: Inputs.configuration(maxIterations: 200)) { benchmark in
        let root = try Inputs.temporaryFolder("docpreview-bench-store")
        defer { try? FileManager.default.removeItem(at: root) }
        let blobs = try BlobStore(root: root, offload: Inputs.offload)
        var bytes = [UInt8](repeating: 0x5A, count: 1 << 20)
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            // New content every time, so nothing is deduplicated away.
            withUnsafeBytes(of: iteration) { bytes.replaceSubrange(0..<$0.count, with: $0) }
            blackHole(try await blobs.put(bytes: bytes, as: .original))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Store:CachedPreview", configuration: Inputs.configuration(scalingFactor: .kilo)) { benchmark in
        let root = try Inputs.temporaryFolder("docpreview-bench-store")
        defer { try? FileManager.default.removeItem(at: root) }
        let quiet = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
        let documents = DocumentService(
            backend: try await StoreBackend(root: root, database: nil, offload: Inputs.offload, logger: quiet),
            offload: Inputs.offload, logger: quiet)
        let photo = Inputs.samples.appendingPathComponent("photo-exif-orientation-6.jpg")
        let ingested = await documents.ingest(photo, labels: DocumentLabels(title: "photo", filename: photo.lastPathComponent))
        guard let id = ingested.documentID else { fatalError("the sample was not ingested: \(ingested.status)") }
        let document = try await documents.document(id: id)
        let request = documents.previewRequest(RenderRequest(), for: document)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            guard case let .stored(preview) = try await documents.previewAnswer(request, of: document) else {
                fatalError("the thumbnail made at ingest is not in the store")
            }
            blackHole(try await documents.blobs.read(preview.resultSha256))
        }
        benchmark.stopMeasurement()
    }
}
