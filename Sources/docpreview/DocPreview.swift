import ArgumentParser
import Foundation

/// The `docpreview` command line (DESIGN §7).
struct DocPreview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docpreview",
        abstract: "Detects, validates and previews uploaded documents.",
        discussion: """
            Exit codes: 0 ok; 1 internal error; 2 usage; 3 input refused (validation, limits); \
            4 input unreadable (corrupt, encrypted, truncated).
            """,
        subcommands: [InfoCommand.self]
    )
}

@main
enum Main {
    static func main() async {
        do {
            var command = try DocPreview.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser reports usage errors as 64 (EX_USAGE); our contract says 2.
            if DocPreview.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((DocPreview.fullMessage(for: error) + "\n").utf8))
                exit(ExitCode.usage.rawValue)
            }
            DocPreview.exit(withError: error)
        }
    }
}
