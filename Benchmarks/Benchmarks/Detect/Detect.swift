import Benchmark
import BenchmarkInputs
import Foundation
import PreviewCore

/// `Detect:<kind>`: detection and validation of one committed sample per kind, reads included.
let benchmarks: @Sendable () -> Void = {
    let validator = Validator()
    let files = (try? FileManager.default.contentsOfDirectory(at: Inputs.samples, includingPropertiesForKeys: nil)) ?? []
    var seen = Set<String>()
    for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) where !file.hasDirectoryPath {
        guard let verdict = try? validator.validate(fileAt: file), seen.insert(verdict.kind.rawValue).inserted else { continue }
        Benchmark("Detect:\(verdict.kind.rawValue)", configuration: Inputs.configuration(scalingFactor: .kilo)) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try validator.validate(fileAt: file))
            }
        }
    }
}
