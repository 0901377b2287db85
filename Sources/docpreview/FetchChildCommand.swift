import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewRenderers

/// `docpreview fetch-child`: the process a download runs in (an order on stdin, the reply on
/// stdout). Not for people.
struct FetchChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch-child", shouldDisplay: false)

    func run() throws {
        throw ExitCode(FetchChild.run())
    }
}
