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

    @OptionGroup var image: RenderOptions

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"output\",\"width\",\"height\",\"ms\"} or the error object.")
    var json = false

    func run() throws {
        try job.run()
    }

    /// What these options ask for, as plain values.
    var job: RenderJob {
        RenderJob(
            input: input, output: output, request: image.request(defaultFormat: RenderJob.format(forOutput: output)),
            validation: validation.settings, json: json)
    }
}

/// One `render`: the file, where its image goes, how it is made.
struct RenderJob: Equatable {
    var input: String
    var output: String
    var request: RenderRequest
    var validation: ValidationSettings
    var json: Bool

    func run() throws {
        let started = ContinuousClock.now
        OneFileHeap.prepare()
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.admit(input, reporting: report)
        let renderers = Renderers(limits: configuration.limits)
        let watchdog = JobWatchdog(seconds: configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        if let renderer = renderers.renderer(for: verdict.kind) {
            let rendered = try report.attempt { () throws -> RenderedImage in try renderer.render(input, request) }
            try RenderReport.deliver(rendered, to: output, since: started, report: report)
        } else if let renderer = renderers.renderer(for: verdict.kind, on: .commandLine) {
            // An office document converts in a child: the one `render` that starts the concurrency runtime.
            let job = self
            Main.finish { () async throws in
                let rendered = try await report.attempt { () async throws -> RenderedImage in try await renderer.render(job.input, job.request) }
                try RenderReport.deliver(rendered, to: job.output, since: started, report: report)
            }
        } else {
            try report.fail(PreviewError(.unsupportedType, "No preview is made for \(verdict.kind.label); it is stored as is."))
        }
    }

    /// The format an output name implies: `.png` and `.webp` by extension, JPEG otherwise.
    static func format(forOutput path: String) -> RenderRequest.Format {
        switch Validator.fileExtension(of: path) {
        case "png": .png
        case "webp": .webp
        default: .jpeg
        }
    }
}

/// The `render --json` object.
struct RenderReport: Encodable {
    var output: String
    var width: Int
    var height: Int
    var ms: Double
    var facts: MediaFacts

    /// Writes `rendered` to `output` and reports it, timed from `started` (`render`, `zoom`).
    static func deliver(_ rendered: RenderedImage, to output: String, since started: ContinuousClock.Instant, report: CommandReport) throws {
        do {
            try OutputFile.write(rendered.bytes, to: output)
        } catch {
            throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
        }
        try report.succeed(
            RenderReport(
                output: output, width: rendered.width, height: rendered.height,
                ms: started.duration(to: .now).roundedMilliseconds, facts: rendered.facts),
            human: "\(output): \(rendered.width)×\(rendered.height) \(rendered.format.rawValue), \(rendered.bytes.count) bytes")
    }
}
