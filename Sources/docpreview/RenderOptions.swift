import ArgumentParser
import PreviewCore

/// The image a command should produce: page, box, format, quality (shared by `render` and `preview`).
struct RenderOptions: ParsableArguments {
    @Option(help: "PDF page, from 1.")
    var page = RenderRequest().page

    @Option(help: "Bounding box width in pixels (default: 512 box; PDF pages 1024 wide).")
    var width: Int?

    @Option(help: "Bounding box height in pixels.")
    var height: Int?

    @Option(help: "jpeg, png or webp.")
    var format: RenderRequest.Format?

    @Option(help: "JPEG/WebP quality, 1-100.")
    var quality = RenderRequest().quality

    func validate() throws {
        try Self.check(request(defaultFormat: .jpeg))
    }

    /// The request, with `defaultFormat` when `--format` was not given.
    func request(defaultFormat: RenderRequest.Format) -> RenderRequest {
        RenderRequest(page: page, width: width, height: height, format: format ?? defaultFormat, quality: quality)
    }

    /// The ranges these options accept, as usage errors.
    static func check(_ request: RenderRequest) throws {
        guard request.page >= 1 else { throw ValidationError("--page starts at 1.") }
        for (name, side) in [("--width", request.width), ("--height", request.height)] {
            if let side, !(1...RenderRequest.maxEdge).contains(side) {
                throw ValidationError("\(name) must be between 1 and \(RenderRequest.maxEdge).")
            }
        }
        guard (1...100).contains(request.quality) else { throw ValidationError("--quality must be between 1 and 100.") }
    }
}

extension RenderRequest.Format: ExpressibleByArgument {}
