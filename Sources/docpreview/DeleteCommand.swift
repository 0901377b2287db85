import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments

/// `docpreview delete ID [--version N]`: a document with all its versions, or one version.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a document (all versions, or one); gc reclaims what nothing refers to any more.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @Option(help: "Only this version.")
    var version: Int?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if let version { try OptionRange.check("--version", version, 1...Int(Int32.max)) }
    }

    func run() async throws {
        let documents = try await storeOptions.documents()
        let report = CommandReport(json: json)
        let deletion = try await report.attempt { try await documents.delete(id: id, version: version) }
        let numbers = deletion.versions.map(\.version).sorted()
        try report.succeed(
            DeletionView(deletion, id: id),
            human: "deleted \(numbers.map { "v\($0)" }.joined(separator: ", ")); \(deletion.cancelledJobs) jobs cancelled")
    }
}
