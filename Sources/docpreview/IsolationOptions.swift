import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewRenderers

/// How `batch`, `serve` and `worker` render: in child processes (the default) or in-process.
struct IsolationOptions: ParsableArguments {
    @Flag(
        name: .customLong("in-process"),
        help: "Render in this process, not in isolated child processes: a file that crashes a library then takes the whole process down.")
    var inProcess = false

    /// The child processes for `jobs` renders at once and `backgroundJobs` background ones (text
    /// and playback jobs), or nil with --in-process (office conversions still run in a child).
    /// Office children are half as many as `jobs` (LibreOffice takes a few hundred MB each), at least one.
    func pool(jobs: Int, backgroundJobs: Int = 1, limits: Limits, logger: Logger) -> RendererPool? {
        inProcess
            ? nil
            : RendererPool(
                executable: RendererPool.currentExecutable, size: jobs, backgroundSize: backgroundJobs,
                officeSize: max(1, jobs / 2), limits: limits, logger: logger)
    }
}

/// `docpreview render-child LIMITS`: the renderer process `batch`, `serve` and `worker` start
/// (calls on stdin, answers on stdout). Not for people.
struct RenderChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "render-child", shouldDisplay: false)

    @Flag(help: "Serve background calls: every thread under SCHED_BATCH at nice 10.")
    var background = false
    @Argument var limits: String

    func run() throws {
        let decoded = try JSONDecoder().decode(Limits.self, from: Data(limits.utf8))
        throw ExitCode(RendererChild.run(limits: decoded, background: background))
    }
}
