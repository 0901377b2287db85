import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers
import PreviewServer

/// `docpreview pyramid INPUT -o OUT.tif`: an image's tiled pyramid, as `serve` makes it for zooming.
struct PyramidCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pyramid",
        abstract: "Write an image's tiled pyramid (a pyramidal TIFF of JPEG tiles, each level half the one before).",
        discussion: "Upright as its EXIF orientation says, in sRGB, flattened on white; `zoom --pyramid` cuts regions from it."
    )

    @Argument(help: "The image.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the pyramid.", valueName: "file"))
    var output: String

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"output\",\"width\",\"height\",\"ms\"} or the error object.")
    var json = false

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        guard verdict.kind.category == .image else { try report.fail(PreviewError(.unsupportedType, "\(verdict.kind.label) is not an image.")) }
        let facts = try report.attempt { try ImageRenderer(limits: configuration.limits).reading(verdict.kind).writePyramid(input, to: output) }
        try report.succeed(
            RenderReport(
                output: output, width: facts.width ?? 0, height: facts.height ?? 0,
                ms: started.duration(to: .now).roundedMilliseconds, facts: facts),
            human: "\(output): \(facts.width ?? 0)×\(facts.height ?? 0) in levels")
    }
}
