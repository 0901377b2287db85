import ArgumentParser
import Foundation
import Logging
import PreviewComposition
import PreviewCore
import PreviewDocuments

/// `docpreview recover`: make documents of the originals the index lost.
struct RecoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: """
            Make documents again of the originals on disk that the index has no row for (owner "recovered"), queued for their \
            previews; `verify` lists them.
            """)

    @Flag(help: "First move what gc quarantined back into the store (deleted documents come back too).")
    var quarantined = false

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let report = try await storeOptions.documents(statementTimeout: StoreBackend.wholeStoreStatementTimeout).recover(
            includingQuarantine: quarantined)
        var human = """
            recovered \(report.recovered.count) documents (owner recovered; `docpreview worker` or `serve` makes their previews); \
            left \(report.derivatives) derivatives, \(report.deleted) deleted documents' blobs, \(report.orphans) orphans of refused \
            writes, \(report.damaged.count) damaged blobs
            """
        if quarantined { human += "; \(report.unquarantined) moved back from the quarantine" }
        human += report.recovered.map { "\n  \($0.documentID)\t\($0.kind)\t\($0.title)" }.joined()
        human += report.uploadsSetBack.map { "\n  set back\t\(SafeText.terminal($0))" }.joined()
        try CommandReport(json: json).succeed(report, human: human)
    }
}
