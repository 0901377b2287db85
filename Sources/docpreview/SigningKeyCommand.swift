import ArgumentParser
import PreviewServer

/// `docpreview signing-key`: a new line for `serve --signing-key-file`.
struct SigningKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signing-key", abstract: "Print a new signing key line (ID SECRET) for serve --signing-key-file.",
        discussion: """
            Rotation: put the new line first in the file (it signs from the next start), keep the old one until the URLs \
            it signed have expired (a day at most), then remove it: its URLs are refused from then on.
            """)

    func run() throws {
        print(SigningKeys.newLine())
    }
}
