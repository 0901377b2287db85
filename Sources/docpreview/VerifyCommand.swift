import ArgumentParser
import Foundation
import Logging
import PreviewComposition
import PreviewCore
import PreviewDocuments

/// `docpreview verify`: re-hash every blob, check every reference and the index itself; exit 1 on any problem.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Re-hash every blob, check every index reference and the index itself, list blobs nothing refers to.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(
        help: ArgumentHelp(
            "With S3 blobs, re-hash every object too (each is downloaded); without it, objects are checked for existence. Folder blobs are always "
                + "re-hashed.")
    )
    var deep = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let report = try await storeOptions.documents(statementTimeout: StoreBackend.wholeStoreStatementTimeout).verify(deep: deep)
        let lost = report.unreferenced.filter(\.isLoss)
        var human = """
            \(report.blobsChecked) blobs checked; damaged \(report.damaged.count); missing \(report.missing.count); \
            unreferenced \(report.unreferenced.count) (\(lost.count) originals the index lost, \
            \(report.unreferenced.filter(\.isOrphan).count) orphans of refused writes); \
            derivative sources missing \(report.derivativeSourcesMissing.count); index problems \(report.indexProblems.count); \
            ladder problems \(report.ladderProblems.count); upload problems \(report.uploadProblems.count)
            """
        for (label, hashes) in [
            ("damaged", report.damaged), ("missing", report.missing), ("derivative source missing", report.derivativeSourcesMissing)
        ] {
            human += hashes.map { "\n  \(label)\t\($0)" }.joined()
        }
        human += report.unreferenced.map { blob in
            let why =
                blob.indexed
                ? "deleted, awaiting gc"
                : blob.isCutShortCacheWrite
                    ? "a cache write cut short, for gc"
                    : blob.isOrphan ? "a refused write's orphan, for gc" : "not in the index"
            return "\n  unreferenced\t\(blob.sha256)\t\(blob.size) bytes\t\(blob.role.rawValue)\t\(why)"
        }.joined()
        human += report.indexProblems.map { "\n  index\t\(SafeText.terminal($0))" }.joined()
        human += report.ladderProblems.map { "\n  ladder\t\($0)" }.joined()
        human += report.uploadProblems.map { "\n  upload\t\(SafeText.terminal($0))" }.joined()
        human += report.damagedCopies.map { "\n  local copy damaged, removed\t\($0)" }.joined()
        if !lost.isEmpty { human += "\n`docpreview recover` makes documents of the \(lost.count) lost originals again." }
        if !report.uploadProblems.isEmpty { human += "\n`docpreview recover` sets those uploads back; their clients send the bytes again." }
        try CommandReport(json: json).succeed(report, human: human)
        if !report.isClean { throw ExitCode.failure }
    }
}
