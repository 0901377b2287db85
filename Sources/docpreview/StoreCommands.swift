import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewStore

/// `docpreview stats [--owner O]`: the storage cards, from the index.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Storage statistics, overall or for one owner.")

    @Option(help: "Only this owner's documents.")
    var owner: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let statistics = try storeOptions.open().index.statistics(owner: owner)
        func listed(_ counts: [String: Int]) -> String {
            counts.isEmpty ? "—" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        let human = """
            documents \(statistics.documents) (\(statistics.versions) versions)\(owner.map { " for \($0)" } ?? "")
            most common type: \(statistics.mostCommonType ?? "—")
            by type: \(listed(statistics.byType))
            by kind: \(listed(statistics.byKind))
            logical \(statistics.logicalBytes) bytes, stored \(statistics.storedBytes) bytes, dedup ratio \(String(format: "%.2f", statistics.dedupRatio))
            previews \(statistics.previews), \(statistics.previewBytes) bytes
            """
        try CommandReport(json: json).succeed(statistics, human: human)
    }
}

/// `docpreview verify`: re-hash every blob, check every reference; exit 1 on damage.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "Re-hash every blob and check every index reference.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let report = try storeOptions.open().verify()
        let human = "\(report.blobsChecked) blobs checked; damaged \(report.damaged.count); missing \(report.missing.count)"
            + (report.damaged + report.missing).map { "\n  \($0)" }.joined()
        try CommandReport(json: json).succeed(report, human: human)
        if !report.isClean { throw ExitCode.failure }
    }
}

/// `docpreview gc`: remove what nothing refers to, sparing recent writes.
struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc", abstract: "Evict on-demand previews beyond their budget; remove unreferenced blobs older than a grace period.")

    @Option(help: "Spare anything younger than this many seconds (writes in flight).")
    var grace: Double = 3600

    @Flag(help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Keep at most this much of on-demand previews (pages and sizes clients asked for), e.g. 10GB.",
                               valueName: "size"))
    var previewCacheSize = Limits.describe(byteCount: Limits().previewCacheBytes)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try OptionRange.check("--grace", grace, 0...(10 * 365 * 86_400))
        guard Limits.parseByteCount(previewCacheSize) != nil else { throw ValidationError("--preview-cache-size takes a size, e.g. 10GB.") }
    }

    func run() throws {
        let store = try storeOptions.open()
        let evicted = dryRun ? 0 : try store.evictPreviews(downTo: Limits.parseByteCount(previewCacheSize)!).derivatives
        var report = try store.collectGarbage(grace: grace, dryRun: dryRun, logger: .cli)
        report.evictedPreviews = evicted
        let verb = dryRun ? "would remove" : "removed"
        try CommandReport(json: json).succeed(report, human: "evicted \(evicted) previews over the budget; "
            + "\(verb) \(report.blobs) blobs (\(report.bytes) bytes) and \(report.temporaries) temporary files")
    }
}
