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

    @Option(help: "PDF page, from 1.")
    var page = 1

    @Option(help: "Width in pixels (default: 512 box; PDF pages 1024 wide).")
    var width: Int?

    @Option(help: "Height in pixels.")
    var height: Int?

    @Option(help: "jpeg, png or webp.")
    var format: RenderRequest.Format = .jpeg

    @Option(name: .shortAndLong, help: ArgumentHelp("Copy the image here (default: print the stored blob's path).", valueName: "file"))
    var output: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard page >= 1 else { throw ValidationError("--page starts at 1.") }
        for side in [width, height].compactMap({ $0 }) where !(1...RenderRequest.maxEdge).contains(side) {
            throw ValidationError("--width and --height must be between 1 and \(RenderRequest.maxEdge).")
        }
    }

    func run() throws {
        let store = try storeOptions.open()
        let pipeline = DocumentPipeline(store: store, logger: .cli)
        let report = CommandReport(json: json)
        let document: DocumentRecord?
        if let hash = BlobHash(hex: reference) {
            document = try store.index.latestDocument(sha256: hash)
        } else {
            document = try store.index.document(id: reference)
        }
        guard let document, let kind = FileKind(rawValue: document.kind) else {
            try report.fail(PreviewError(.notFound, "No document \(reference) in the store."))
        }
        let request = RenderRequest(page: page, width: width, height: height, format: format)
        let watchdog = JobWatchdog(seconds: pipeline.configuration.limits.jobSeconds, json: json)
        defer { withExtendedLifetime(watchdog) {} }
        let result: (record: DerivativeRecord, cached: Bool)
        do {
            result = try pipeline.preview(source: document.sha256, kind: kind, request: request)
        } catch {
            try report.fail(error)
        }
        let blob = store.blobs.url(for: result.record.resultSha256)
        if let output {
            do {
                try Data(store.blobs.read(result.record.resultSha256)).write(to: URL(fileURLWithPath: output))
            } catch {
                throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
            }
        }
        report.succeed(PreviewReport(path: output ?? blob.path, sha256: result.record.resultSha256.hex, width: result.record.width,
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
