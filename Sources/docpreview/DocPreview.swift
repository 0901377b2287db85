import ArgumentParser
import Foundation
import PreviewFFmpeg
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
        subcommands: [InfoCommand.self, RenderCommand.self, IngestCommand.self, BatchCommand.self, PreviewCommand.self,
                      StatsCommand.self, ListCommand.self, VersionsCommand.self, RestoreCommand.self, DeleteCommand.self,
                      ServeCommand.self, WorkerCommand.self, JobsCommand.self, VerifyCommand.self, GCCommand.self,
                      RenderChildCommand.self]
    )
}

@main
enum Main {
    static func main() async {
        Vips.deferModules()
        let status = await run()
        // Process-wide teardown, once: with VIPS_LEAK=1 libvips lists any object still alive.
        Vips.shutdown()
        exit(status)
    }

    /// Runs the command and returns the exit status; prints what ArgumentParser would.
    private static func run() async -> Int32 {
        do {
            var command = try DocPreview.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
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
}
