import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewPipeline
import PreviewStore

/// `docpreview preview SHA256|DOCUMENT_ID …`: a preview from the store, rendered now only if it
/// was never rendered before.
struct PreviewCommand: ParsableCommand {
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

    func run() throws {
        let pipeline = try storeOptions.documents().pipeline
        let store = pipeline.store
        let report = CommandReport(json: json)
        let document: DocumentRecord?
        if let hash = BlobHash(hex: reference) {
            document = try store.index.latestDocument(sha256: hash)
        } else {
            document = try store.index.document(id: reference)
        }
        guard let document else {
            try report.fail(PreviewError(.notFound, "No document \(reference) in the store."))
        }
        let request = image.request(defaultFormat: .jpeg)
        let watchdog = JobWatchdog(seconds: pipeline.configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let result: DocumentPipeline.PreviewOutcome
        do {
            result = try pipeline.preview(source: document.sha256, kind: document.kind, request: request)
        } catch {
            try report.fail(error)
        }
        let blob = try store.blobs.localFile(for: result.record.resultSha256)
        if let output {
            do {
                try OutputFile.write(store.blobs.read(result.record.resultSha256), to: output)
            } catch {
                throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
            }
        }
        try report.succeed(PreviewReport(path: output ?? blob.path, sha256: result.record.resultSha256.hex, width: result.record.width,
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

    enum CodingKeys: String, CodingKey {
        case path, sha256, width, height, cached
        case documentID = "document_id"
    }
}
