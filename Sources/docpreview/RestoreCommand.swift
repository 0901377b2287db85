import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments

/// `docpreview restore ID --version N`: an earlier version becomes the current one (a new version, same blob).
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Make an earlier version of a document current again.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @Option(help: "The version to restore.")
    var version: Int

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try OptionRange.check("--version", version, 1...Int(Int32.max))
    }

    func run() async throws {
        let documents = try await storeOptions.documents()
        let report = CommandReport(json: json)
        let (document, job) = try await report.attempt { try await documents.restore(version: version, of: id) }
        try report.succeed(
            DocumentView(document), human: "v\(version) restored as v\(document.version) [document \(document.id)], job \(job.status.rawValue)")
    }
}
