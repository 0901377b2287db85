import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview render INPUT -o OUT …`: one file, validated like an upload, rendered, no store.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render one file's preview (video first frame, PDF page, image thumbnail) to an image file."
    )

    @Argument(help: "The file to render.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the image.", valueName: "file"))
    var output: String

    @Option(help: "PDF page, from 1.")
    var page = 1

    @Option(help: "Bounding box width in pixels (default: 512 box; PDF pages 1024 wide).")
    var width: Int?

    @Option(help: "Bounding box height in pixels.")
    var height: Int?

    @Option(help: "jpeg, png or webp (default: from the output name, else jpeg).")
    var format: RenderRequest.Format?

    @Option(help: "JPEG/WebP quality, 1-100.")
    var quality = 80

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"output\",\"width\",\"height\",\"ms\"} or the error object.")
    var json = false

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page starts at 1.") }
        for (name, side) in [("--width", width), ("--height", height)] {
            if let side, !(1...RenderRequest.maxEdge).contains(side) {
                throw ValidationError("\(name) must be between 1 and \(RenderRequest.maxEdge).")
            }
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
    }

    func run() throws {
        let started = ContinuousClock.now
        let configuration = try validation.configuration()
        let verdict = try validation.validate(input, in: configuration)
        let report = CommandReport(json: json)
        if let refusal = verdict.refusal { try report.fail(refusal) }
        guard let renderer = Renderers(limits: configuration.limits).renderer(for: verdict.kind) else {
            try report.fail(PreviewError(.unsupportedType, "No preview is made for \(verdict.kind.label); it is stored as is."))
        }
        let watchdog = JobWatchdog(seconds: configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let request = RenderRequest(page: page, width: width, height: height,
                                    format: format ?? Self.format(forOutput: output), quality: quality)
        let image: RenderedImage
        do {
            image = try renderer.render(input, request)
        } catch {
            try report.fail(error)
        }
        do {
            try Data(image.bytes).write(to: URL(fileURLWithPath: output))
        } catch {
            throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
        }
        let elapsed = started.duration(to: .now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        report.succeed(RenderReport(output: output, width: image.width, height: image.height,
                                    ms: (milliseconds * 10).rounded() / 10, facts: image.facts),
                       human: "\(output): \(image.width)×\(image.height) \(image.format.rawValue), \(image.bytes.count) bytes")
    }

    static func format(forOutput path: String) -> RenderRequest.Format {
        switch Validator.fileExtension(of: path) {
        case "png": .png
        case "webp": .webp
        default: .jpeg
        }
    }
}

extension RenderRequest.Format: ExpressibleByArgument {}

/// The `render --json` object.
struct RenderReport: Encodable {
    var output: String
    var width: Int
    var height: Int
    var ms: Double
    var facts: MediaFacts
}
