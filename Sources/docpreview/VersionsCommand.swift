import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments

/// `docpreview versions ID`: every version of a document, newest first.
struct VersionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "versions", abstract: "List the versions of a document.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let documents = try await storeOptions.documents()
        let report = CommandReport(json: json)
        let versions = try await report.attempt { try await documents.versions(of: id) }
        let lines = versions.map {
            "v\($0.version)\t\($0.id)\t\($0.size)\t\($0.sha256.hex)\t\($0.createdAt.formatted(.iso8601))\t\($0.previewStatus.rawValue)"
        }
        try report.succeed(VersionList(versions), human: lines.joined(separator: "\n"))
    }
}
