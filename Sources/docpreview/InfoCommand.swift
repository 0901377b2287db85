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
        let report = InfoReport(path: input, size: size, verdict: verdict)
        let watchdog = JobWatchdog(seconds: configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let renderers = Renderers(limits: configuration.limits)
        guard verdict.isAccepted else { return try deliver(report) }
        if let renderer = renderers.renderer(for: verdict.kind) {
            try deliver(report.probed { () throws(PreviewError) in try renderer.probe(input) })
        } else if let renderer = renderers.renderer(for: verdict.kind, on: .commandLine) {
            // An office document converts in a child: the one `info` that starts the concurrency runtime.
            Main.finish { [self] in try deliver(await report.probed { () async throws(PreviewError) in try await renderer.probe(input) }) }
        } else {
            try deliver(report)
        }
    }

    private func deliver(_ report: InfoReport) throws {
        print(json ? try CommandReport.encode(report) : CommandReport.forPeople(report.humanReadable))
        if let code = report.error.flatMap({ PreviewError.Code(rawValue: $0.code) }) {
            throw ExitCode(PreviewError(code, ""))
        }
    }
}
