// swift-tools-version: 6.1
import PackageDescription
import Foundation

/// The C compiler flags of pkg-config `packages`, read when the manifest is evaluated.
/// Only the wrappers' compilations get them: FFmpeg, Poppler and libvips are not linked but opened on
/// first use (Sources/CNativeLoader), so pkg-config's link flags are not wanted.
func compilerFlags(pkgConfig packages: [String]) -> [String] {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags"] + packages
    process.standardOutput = output
    guard (try? process.run()) != nil else { return [] }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return text.split(separator: " ").map(String.init).filter { $0.hasPrefix("-I") }
}

let nativeHeaders: [SwiftSetting] = [
    .unsafeFlags(
        compilerFlags(pkgConfig: ["libavformat", "libavcodec", "libswscale", "libavutil", "vips"])
            .flatMap { ["-Xcc", $0] })
]

let package = Package(
    name: "DocPreview",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "docpreview", targets: ["docpreview"]),
        // Poppler's core and Splash behind plain C functions (Sources/PopplerSplash): a shared library of
        // its own beside the executable, opened on the first PDF (CPoppler), so other runs never map Poppler.
        .library(name: "DocPreviewSplash", type: .dynamic, targets: ["PopplerSplash"]),
        // The one door of the two packages beside this one: Benchmarks/ (kept apart so that
        // package-benchmark and its malloc interposer stay out of this build) and Fuzz/Renderers (no
        // `main` of its own: it builds only under libFuzzer). `package` access does not cross packages,
        // so what they call is `public` and nothing else is (docs/architecture.md, "Access"). `@_spi`
        // would hide those declarations from this package's own modules unless every import named it.
        .library(
            name: "DocPreviewForTools",
            targets: [
                "PreviewCore", "PreviewDomain", "PreviewRenderers", "PreviewStore", "PreviewPipeline", "PreviewPostgres",
                "PreviewDocuments", "PreviewComposition"
            ])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // The pages' templates (Hummingbird's own engine; HTML-escaped by default).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // TLS of our own: self-signed certificates for `tls-init` (the TLS itself is hummingbird's, over swift-nio-ssl).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        // The object-store driver's HTTP client (S3 requests signed by our own SigV4 signer).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0")
    ],
    targets: [
        // System libraries: headers only (include paths from pkg-config, above; scripts/install-deps
        // installs them); the libraries are opened on first use. Shims and lazy lookups in each shim.h.
        .systemLibrary(name: "CFFmpeg"),
        .systemLibrary(name: "CPoppler"),
        .systemLibrary(name: "CVips"),
        // <sys/xattr.h>: a blob's role is kept in an extended attribute.
        .systemLibrary(name: "CFileAttributes"),

        // The C functions of the Poppler shim library (one header): the contract between PopplerSplash,
        // which defines them, and CPoppler, which looks them up lazily.
        .target(name: "PopplerSplashAPI"),

        // The C++ shim over Poppler's core (PDFDoc, SplashOutputDev) that the DocPreviewSplash library is
        // made of. No target depends on it: PreviewPoppler reaches it through CPoppler's lazy lookups.
        .target(
            name: "PopplerSplash", dependencies: ["PopplerSplashAPI"],
            // Its one header is PopplerSplashAPI's; it has none of its own to publish.
            publicHeadersPath: ".",
            cxxSettings: [.unsafeFlags(compilerFlags(pkgConfig: ["poppler"]))],
            // swiftc links every dynamic product against the Swift runtime (its start-up object and
            // libswiftCore). Nothing here is Swift: without the start-up object and with the runtime
            // as a static archive, nothing of it is linked, and no second runtime is ever mapped into
            // a binary that carries its own (--static-swift-stdlib).
            linkerSettings: [.linkedLibrary("poppler"), .unsafeFlags(["-nostartfiles", "-static-stdlib"])]),

        // Opens a shared library on first use and looks up its functions (see native_loader.h).
        .target(name: "CNativeLoader"),

        // JPEG, PNG and WebP encoders over libjpeg-turbo, libpng and libwebp (opened on first use), for
        // decoded pixels: PDF pages and video frames are encoded without loading libvips.
        .target(name: "CEncoders", dependencies: ["CNativeLoader"]),

        // Tesseract and Leptonica (opened on first use) behind one call: a page's pixels in, its words out.
        .target(name: "COCR", dependencies: ["CNativeLoader"]),

        // libxml2's HTML parser (opened on first use) as a stream: what a page's markup says about
        // itself (its meta tags, links, title, JSON-LD), for a link's card.
        .target(name: "CHTML", dependencies: ["CNativeLoader"], cSettings: [.unsafeFlags(compilerFlags(pkgConfig: ["libxml-2.0"]))]),

        // LibreOfficeKit through plain functions, over Debian's libreofficekit-dev headers; the office
        // itself is opened at run time (LibreOfficeKitInit.h dlopens libmergedlo.so).
        .target(name: "COffice", linkerSettings: [.linkedLibrary("dl")]),

        // One thin wrapper per C library: owned handles, typed errors, no pipeline knowledge.
        // They depend on PreviewCore only for the pixel hand-off type and the output formats.
        .target(name: "PreviewFFmpeg", dependencies: ["CFFmpeg", "CNativeLoader", "PreviewCore"], swiftSettings: nativeHeaders),
        .target(
            name: "PreviewPoppler", dependencies: ["CPoppler", "CNativeLoader", "PopplerSplashAPI", "PreviewCore"],
            swiftSettings: nativeHeaders),
        .target(name: "PreviewVips", dependencies: ["CVips", "CNativeLoader", "PreviewCore"], swiftSettings: nativeHeaders),
        .target(name: "PreviewOffice", dependencies: ["COffice"]),
        .target(name: "PreviewOCR", dependencies: ["COCR", "PreviewCore"]),

        // No C imports: kinds, detection, rules, verdicts, errors, the renderer contract.
        // The core: no C library; swift-metrics for the one declaration of every metric (ServiceMetrics).
        .target(name: "PreviewCore", dependencies: [.product(name: "Metrics", package: "swift-metrics")]),

        // The renderers (video, PDF, image; office, text and CSV through a PDF pivot) on top of the wrappers.
        // Starts renderer children on pipes that no other child inherits (pipe2 + posix_spawn).
        .target(name: "CProcessControl"),

        .target(
            name: "PreviewRenderers",
            dependencies: [
                "PreviewCore", "PreviewFFmpeg", "PreviewPoppler", "PreviewVips", "PreviewOffice", "PreviewOCR", "CEncoders", "CProcessControl",
                .product(name: "Logging", package: "swift-log")
            ]),

        // The values the service talks about, plain and without storage: a document version and its
        // statuses, a job, a share link, a resumable upload, a blob's hash. Every layer above names
        // them without importing the store that keeps them.
        .target(
            name: "PreviewDomain",
            dependencies: ["PreviewCore", .product(name: "Crypto", package: "swift-crypto")]),

        // Content-addressed blobs (SHA-256), the index and the durable job queue: protocols and their
        // SQLite drivers (GRDB). Documents and jobs share one schema and one migrator, so a job's state
        // and its document's row change in one transaction.
        .target(
            name: "PreviewStore",
            dependencies: [
                "PreviewCore", "PreviewDomain", "CFileAttributes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log")
            ]),

        // Ingest, lazy previews and batch runs: detection → validation → store → render → index.
        .target(
            name: "PreviewPipeline",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewRenderers",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics")
            ]),

        // The PostgreSQL drivers of the index and the queue, for many workers on many hosts (DESIGN §11).
        .target(
            name: "PreviewPostgres",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log")
            ]),

        // Blobs in an S3-compatible object store: SigV4 requests over async-http-client, a local cache
        // of copies for the C libraries, byte ranges straight to clients.
        .target(
            name: "PreviewS3",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl")
            ]),

        // Shared links fetched in child processes of their own: an address-checking proxy as their only
        // way out, direct media over async-http-client, social sites through yt-dlp.
        .target(
            name: "PreviewFetch",
            dependencies: [
                "PreviewCore", "CProcessControl", "CHTML",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ]),

        // A document's life above the pipeline and the queue: the worker service, recovery, the
        // store's fault handling; over the index, queue and blob protocols, whichever drivers they have.
        .target(
            name: "PreviewDocuments",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewPipeline", "PreviewFetch",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),

        // The composition root: the choice of backends (SQLite or PostgreSQL, a folder or S3) and the
        // one place the document service is built, for the commands and the tests alike.
        .target(
            name: "PreviewComposition",
            dependencies: [
                "PreviewCore", "PreviewStore", "PreviewRenderers", "PreviewPipeline", "PreviewPostgres", "PreviewS3", "PreviewDocuments",
                .product(name: "Logging", package: "swift-log")
            ]),

        // The HTTP front: uploads, documents, previews, statistics, health, metrics, a small page.
        .target(
            name: "PreviewServer",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewDocuments",
                // The webhook's requests to the address its operator gave.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),

        // The pages for people (List, Detail, Viewer, sign-in, a share's page) over the document
        // service, mounted by the server; the API never depends on them.
        .target(
            name: "PreviewWeb",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewDocuments", "PreviewServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache")
            ],
            // The pages' templates, stylesheet and scripts, as files of their own, compiled into the binary.
            resources: [.embedInCode("web")]),

        // Test support in two layers: files, processes and faults over the core only, so the core's
        // tests build no media library; the backends the store tests run on, above the drivers.
        .target(
            name: "PreviewTestSupport",
            dependencies: [
                "PreviewCore",
                .product(name: "Logging", package: "swift-log")
            ]),
        .target(
            name: "PreviewBackendTestSupport",
            dependencies: [
                "PreviewComposition", "PreviewPostgres", "PreviewS3", "PreviewTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio")
            ]),

        .executableTarget(
            name: "docpreview",
            dependencies: [
                "PreviewCore",
                "PreviewDomain",
                "PreviewRenderers",
                "PreviewPipeline",
                "PreviewDocuments",
                "PreviewComposition",
                "PreviewFetch",
                "PreviewServer",
                "PreviewWeb",
                "PreviewStore",
                "PreviewVips",
                "CProcessControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // `upload`'s client of the server's resumable uploads.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            // Installed, the PDF library sits in ../lib (scripts/install-layout); built, beside the binary ($ORIGIN).
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib"])]
        ),

        .testTarget(name: "PreviewCoreTests", dependencies: ["PreviewCore", "PreviewTestSupport"]),
        .testTarget(name: "FetchTests", dependencies: ["PreviewCore", "PreviewFetch"]),
        .testTarget(name: "NativeLibraryTests", dependencies: ["PreviewFFmpeg", "PreviewPoppler", "PreviewVips", "PreviewTestSupport"]),
        .testTarget(
            name: "RendererTests",
            dependencies: [
                "PreviewCore", "PreviewRenderers", "PreviewVips", "PreviewPoppler", "PreviewOCR",
                "PreviewTestSupport"
            ]),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewRenderers", "PreviewPipeline", "PreviewDocuments", "PreviewComposition",
                "PreviewPostgres", "PreviewS3", "PreviewTestSupport", "PreviewBackendTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio")
            ]),
        .testTarget(
            name: "PreviewDocumentsTests",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewDocuments", "PreviewComposition", "PreviewFetch", "PreviewTestSupport",
                "PreviewBackendTestSupport"
            ]),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "PreviewCore", "PreviewDomain", "PreviewStore", "PreviewPipeline", "PreviewServer", "PreviewWeb", "PreviewPostgres", "PreviewS3",
                "PreviewDocuments", "PreviewComposition", "PreviewRenderers", "PreviewPoppler", "PreviewTestSupport", "PreviewBackendTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "docpreview", "PreviewCore", "PreviewTestSupport", "PreviewBackendTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ])
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
