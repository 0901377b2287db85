import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview info INPUT [--type T] [--json]`: detected kind, verdict and, for refused files, the error.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a file's detected type and upload verdict, without rendering."
    )

    @Argument(help: "The file to inspect.")
    var input: String

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print JSON (DESIGN §7 shape).")
    var json = false

    func run() throws {
        let configuration = try validation.settings.localConfiguration()
        let verdict = try validation.settings.validate(input, in: configuration)
        let size = (try? FileManager.default.attributesOfItem(atPath: input)[.size] as? Int) ?? 0
        var report = InfoReport(path: input, size: size, verdict: verdict)
        let watchdog = JobWatchdog(seconds: configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        if verdict.isAccepted, let renderer = Renderers(limits: configuration.limits).renderer(for: verdict.kind) {
            do {
                report.facts = try renderer.probe(input)
            } catch {
                report.error = ErrorEnvelope(error).error
                report.verdict.accepted = false
                report.verdict.preview = "none"
            }
        }
        print(json ? try CommandReport.encode(report) : CommandReport.forPeople(report.humanReadable))
        if let code = report.error.flatMap({ PreviewError.Code(rawValue: $0.code) }) {
            throw ExitCode(PreviewError(code, ""))
        }
    }
}
