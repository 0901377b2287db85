import Benchmark
import Foundation
import PreviewCore

/// The generated benchmark inputs (`scripts/make-samples --large`), the committed samples and the
/// settings every area shares.
public enum Inputs {
    /// The repository root, from this file's place in it.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$DOCPREVIEW_LARGE_SAMPLES`, or `Samples/large` in the repository.
    public static let largeFolder: URL = {
        if let folder = ProcessInfo.processInfo.environment["DOCPREVIEW_LARGE_SAMPLES"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        return repository.appendingPathComponent("Samples/large")
    }()

    /// The committed small samples.
    public static let samples = repository.appendingPathComponent("Samples")

    /// The path of a generated input; stops with the command that makes it when it is missing.
    public static func large(_ name: String) -> String {
        let url = largeFolder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            fatalError("\(url.path) is missing: run scripts/make-samples --large \(largeFolder.path)")
        }
        return url.path
    }

    /// Where the store's and renderers' blocking work runs, one set of lanes for every benchmark.
    public static let offload = Offload(reads: 4, writes: 4, renders: ProcessInfo.processInfo.activeProcessorCount)

    /// A new empty folder under the system's temporary folder.
    public static func temporaryFolder(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Wall clock, throughput, peak resident memory and malloc counts; bounded so a whole area
    /// finishes in about a minute.
    public static func configuration(
        scalingFactor: BenchmarkScalingFactor = .one, maxDuration: Duration = .seconds(5), maxIterations: Int = 50
    ) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .throughput, .peakMemoryResident, .mallocCountTotal],
            warmupIterations: 1, scalingFactor: scalingFactor, maxDuration: maxDuration, maxIterations: maxIterations)
    }
}
