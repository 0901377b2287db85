import Benchmark
import BenchmarkInputs
import Foundation
import Logging
import PreviewPipeline
import PreviewStore

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
        let store = try PreviewStore.Store(root: folder.appendingPathComponent("store"), offload: .forTests)
        let runner = BatchRunner(pipeline: DocumentPipeline(store: store, openDocuments: 8, logger: Logger(label: "benchmark", factory: { _ in SwiftLogNoOpLogHandler() })), jobs: 2)
        benchmark.startMeasurement()
        blackHole(try await runner.run(input))
        benchmark.stopMeasurement()
    }
}
