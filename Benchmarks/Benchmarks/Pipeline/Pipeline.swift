import Benchmark
import BenchmarkInputs
import Foundation
import Logging
import PreviewComposition
import PreviewDocuments

/// `Pipeline:Batch Samples`: a first batch run (2 jobs) over the committed samples — videos, PDFs,
/// images, office files and bad inputs — into an empty store: detect, validate, store, render, index.
let benchmarks: @Sendable () -> Void = {
    Benchmark("Pipeline:Batch Samples", configuration: Inputs.configuration(maxDuration: .seconds(20), maxIterations: 10)) { benchmark in
        let folder = try Inputs.temporaryFolder("docpreview-bench-batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("input")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(at: Inputs.samples, includingPropertiesForKeys: [.isRegularFileKey])
        where try file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            try FileManager.default.copyItem(at: file, to: input.appendingPathComponent(file.lastPathComponent))
        }
        let quiet = Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
        let backend = try await StoreBackend(root: folder.appendingPathComponent("store"), database: nil, offload: Inputs.offload, logger: quiet)
        let runner = BatchRunner(documents: DocumentService(backend: backend, openDocuments: 8, offload: Inputs.offload, logger: quiet), jobs: 2)
        benchmark.startMeasurement()
        blackHole(try await runner.run(input))
        benchmark.stopMeasurement()
    }
}
