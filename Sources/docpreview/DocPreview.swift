import ArgumentParser
import CProcessControl
import Foundation
import PreviewVips

/// The `docpreview` command line (DESIGN §7).
struct DocPreview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docpreview",
        abstract: "Detects, validates and previews uploaded documents.",
        discussion: """
            Exit codes: 0 ok; 1 internal error; 2 usage; 3 input refused (validation, limits); \
            4 input unreadable (corrupt, encrypted, truncated).
            """,
        subcommands: [
            InfoCommand.self, RenderCommand.self, TextCommand.self, SearchCommand.self, ZoomCommand.self, PyramidCommand.self, TranscodeCommand.self,
            SpritesCommand.self, PlaysCommand.self, ClipCommand.self, IngestCommand.self, BatchCommand.self, PreviewCommand.self,
            StatsCommand.self, ListCommand.self, VersionsCommand.self, RelabelCommand.self, RestoreCommand.self, DeleteCommand.self,
            ServeCommand.self, UploadCommand.self, WorkerCommand.self, JobsCommand.self, SigningKeyCommand.self, TLSInitCommand.self,
            VerifyCommand.self, GCCommand.self, RecoverCommand.self,
            TokensCommand.self, LinkPreviewCommand.self, RenderChildCommand.self, FetchChildCommand.self
        ]
    )
}

@main
enum Main {
    /// Synchronous on purpose: a one-file command (`render`, `info`, …) runs on the main thread and
    /// never starts the concurrency runtime's threads; only `serve` and `worker` need them.
    static func main() {
        _ = docpreview_skip_fast_bins()
        Vips.deferModules()
        if let job = RenderJob(commandLine: CommandLine.arguments.dropFirst()) {
            finish { try job.run() }
        }
        let command: any ParsableCommand
        do {
            command = try DocPreview.parseAsRoot()
        } catch {
            finish(status(for: error))
        }
        if let command = command as? any AsyncParsableCommand {
            let parsed = Handover(command)
            finish {
                var command = parsed.value
                try await command.run()
            }
        }
        var synchronous = command
        finish { try synchronous.run() }
    }

    /// Runs `body`, then ends the process with its status.
    private static func finish(_ body: () throws -> Void) -> Never {
        do {
            try body()
            finish(0)
        } catch {
            finish(status(for: error))
        }
    }

    /// Runs `body` on the concurrency runtime (started here), then ends the process with its status.
    static func finish(_ body: @escaping @Sendable () async throws -> Void) -> Never {
        Task {
            do {
                try await body()
                finish(0)
            } catch {
                finish(status(for: error))
            }
        }
        dispatchMain()
    }

    /// Process-wide teardown, once (with VIPS_LEAK=1 libvips lists any object still alive), then exit.
    private static func finish(_ status: Int32) -> Never {
        Vips.shutdown()
        exit(status)
    }

    /// Prints what ArgumentParser would for `error` and returns the exit status.
    private static func status(for error: any Error) -> Int32 {
        let code = DocPreview.exitCode(for: error)
        let message = DocPreview.fullMessage(for: error)
        if !message.isEmpty {
            if code == .success {
                print(message)
            } else {
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
        }
        // ArgumentParser reports usage errors as 64 (EX_USAGE); our contract says 2.
        return code == .validationFailure ? ExitCode.usage.rawValue : code.rawValue
    }
}

/// Hands the parsed async command to the task that runs it; the main thread never touches it again.
private struct Handover<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
