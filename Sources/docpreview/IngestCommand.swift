import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments

/// `docpreview ingest INPUT …`: one file into the store, with its thumbnail.
struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest", abstract: "Store one file and its thumbnail; print the document (the batch report entry).")

    @Argument(help: "The file to ingest.")
    var input: String

    @Option(help: "Owner of the document.")
    var owner = ""

    @Option(help: "Title (default: the file name). The same owner, type and title again makes a new version.")
    var title: String?

    @Option(help: "What the document is about.")
    var description = ""

    @Option(help: "The school the document is for.")
    var school: String?

    @OptionGroup var validation: ValidationOptions
    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    @Flag(help: "Also make a video's renditions and scrubbing thumbnails (as the queue's playback jobs do).")
    var renditions = false

    func run() async throws {
        let configuration = try validation.settings.localConfiguration()
        let type = try validation.settings.declaredType(in: configuration)
        let url = try ValidationSettings.existingFile(input)
        let documents = try await storeOptions.documents(configuration: configuration)
        let watchdog = JobWatchdog(seconds: configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let labels = DocumentLabels(
            owner: owner, type: type, title: title ?? url.lastPathComponent, filename: url.lastPathComponent,
            description: DocumentLabels.description(description), school: DocumentLabels.school(school))
        let outcome = await documents.ingest(url, labels: labels, reportedPath: input, renditions: renditions)
        print(json ? try CommandReport.encode(outcome) : CommandReport.forPeople(outcome.humanReadable))
        if outcome.exitCode != .success { throw outcome.exitCode }
    }
}
