// swift-tools-version: 6.1
import PackageDescription
import struct Foundation.URL

/// A path dependency's identity is its folder's name, which is whatever the checkout was cloned as.
let main = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent

/// libFuzzer targets that drive the renderers' probe and render paths (FFmpeg, Poppler, libvips)
/// in-process on arbitrary bytes. Kept out of the main package: it has no `main` of its own (libFuzzer
/// brings one), so it builds only with `--sanitize=fuzzer` (scripts/fuzz).
let package = Package(
    name: "DocPreviewFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "RendererFuzzer",
            dependencies: [
                // The main package's modules, through its one product for the packages beside it.
                .product(name: "DocPreviewForTools", package: main),
                // Linked here (the CLI opens it on the first PDF) so that it is built beside the fuzzer.
                .product(name: "DocPreviewSplash", package: main)
            ], swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    ]
)
