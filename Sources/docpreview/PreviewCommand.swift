import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments

/// `docpreview preview SHA256|DOCUMENT_ID …`: a preview from the store, rendered now only if it
/// was never rendered before.
struct PreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview", abstract: "Get a document's preview (any PDF page, any width) from the store, rendering it once if needed.")

    @Argument(help: "A document id, or the SHA-256 of a stored original.")
    var reference: String

    @OptionGroup var image: RenderOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Copy the image here (default: print the stored blob's path).", valueName: "file"))
    var output: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let documents = try await storeOptions.documents()
        let report = CommandReport(json: json)
        let watchdog = JobWatchdog(seconds: documents.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let (document, result) = try await report.attempt { try await documents.preview(of: reference, image.request(defaultFormat: .jpeg)) }
        let blob = try await documents.blobs.localFile(for: result.record.resultSha256)
        if let output {
            do {
                try await OutputFile.write(documents.blobs.read(result.record.resultSha256), to: output)
            } catch {
                throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
            }
        }
        try report.succeed(
            PreviewReport(
                path: output ?? blob.path, sha256: result.record.resultSha256.hex, width: result.record.width,
                height: result.record.height, cached: result.cached, documentID: document.id),
            human: "\(output ?? blob.path) \(result.record.width)×\(result.record.height)\(result.cached ? " (cached)" : "")")
    }
}

struct PreviewReport: Encodable {
    var path: String
    var sha256: String
    var width: Int
    var height: Int
    var cached: Bool
    var documentID: String
}
