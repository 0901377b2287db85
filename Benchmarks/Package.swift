// swift-tools-version: 6.1
import PackageDescription
import struct Foundation.URL

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let main = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Benchmarks of DocPreview with ordo-one/benchmark, kept out of the main package so its build stays light.
/// Inputs come from `scripts/make-samples --large Samples/large` (or `$DOCPREVIEW_LARGE_SAMPLES`).
/// Run: `swift package benchmark` here; one executable target per area, benchmarks named `Area:Case`.
/// What the store and queue tools link: both backends, no renderer.
/// The main package's modules, through its one product for the packages beside it (what they call is `public` there).
let docPreview: Target.Dependency = .product(name: "DocPreviewForTools", package: main)
let storeAndQueue: [Target.Dependency] = [docPreview, .product(name: "Logging", package: "swift-log"), "ScaleRun"]

let package = Package(
    name: "DocPreviewBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"])
    ],
    targets: [
        // Where the generated inputs are, shared by every area.
        .target(name: "BenchmarkInputs", dependencies: [.product(name: "Benchmark", package: "benchmark"), docPreview]),
        // What the scale tools share: their arguments, their clock, their JSON lines.
        .target(name: "ScaleRun"),
        // The job queue's own ceiling with empty jobs, on SQLite and PostgreSQL (scripts/bench-queue runs it).
        .executableTarget(name: "queue-load", dependencies: storeAndQueue, path: "Benchmarks/QueueLoad"),
        // The index at 1,000,000 documents: statistics, listing and an upload's commit (scripts/bench-index runs it).
        .executableTarget(
            name: "index-scale",
            dependencies: storeAndQueue + [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio")
            ], path: "Benchmarks/IndexScale"),
        // The store-wide text search at 100,000 pages (scripts/bench-search runs it).
        .executableTarget(
            name: "search-scale",
            dependencies: storeAndQueue + [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The current PDF reading's version is Poppler's, asked of this library.
                .product(name: "DocPreviewSplash", package: main)
            ], path: "Benchmarks/SearchScale")
    ]
)

for area in ["Detect", "Video", "PDF", "Image", "Zoom", "Store", "Pipeline"] {
    package.targets.append(
        .executableTarget(
            name: area,
            dependencies: [
                "BenchmarkInputs",
                .product(name: "Benchmark", package: "benchmark"),
                docPreview,
                // Linked here (the CLI opens it on the first PDF) so that it is built beside the benchmark.
                .product(name: "DocPreviewSplash", package: main),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Benchmarks/\(area)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
}
