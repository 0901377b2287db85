import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments

/// `docpreview relabel ID [--title T] [--type T] [--description D] [--school S]`: what `PATCH
/// /v1/documents/{id}` does, under the same rules.
struct RelabelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relabel",
        abstract: "Give a document a new title or type (every version), or a new description or school (its latest version).")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @Option(help: "The new title.")
    var title: String?

    @Option(help: "The new declared type id (\"\" for none).")
    var type: String?

    @Option(help: "The new description (\"\" for none).")
    var description: String?

    @Option(help: "The new school (\"\" for none).")
    var school: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if title == nil && type == nil && description == nil && school == nil {
            throw ValidationError("Give at least one of --title, --type, --description and --school.")
        }
    }

    func run() async throws {
        let documents = try await storeOptions.documents()
        let report = CommandReport(json: json)
        let relabelled = try await report.attempt {
            try await documents.relabel(id: id, title: title, typeID: type, description: description, school: school)
        }
        try report.succeed(DocumentView(relabelled), human: "\(relabelled.id)\tv\(relabelled.version)\t\(SafeText.terminal(relabelled.title))")
    }
}
