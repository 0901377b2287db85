import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewPipeline
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
        let statistics = try storeOptions.documents().statistics(owner: owner)
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

/// `docpreview verify`: re-hash every blob, check every reference and the index itself; exit 1 on any problem.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Re-hash every blob, check every index reference and the index itself, list blobs nothing refers to.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "With S3 blobs, re-hash every object too (each is downloaded); without it, objects are checked for existence. Folder blobs are always re-hashed.")
    var deep = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let pipeline = try storeOptions.documents().pipeline
        let report = try pipeline.verify(rehash: deep || !pipeline.store.blobs.isRemote)
        let lost = report.unreferenced.filter(\.isLoss)
        var human = """
            \(report.blobsChecked) blobs checked; damaged \(report.damaged.count); missing \(report.missing.count); \
            unreferenced \(report.unreferenced.count) (\(lost.count) originals the index lost, \
            \(report.unreferenced.filter(\.isOrphan).count) orphans of refused writes); \
            derivative sources missing \(report.derivativeSourcesMissing.count); index problems \(report.indexProblems.count); \
            ladder problems \(report.ladderProblems.count)
            """
        for (label, hashes) in [("damaged", report.damaged), ("missing", report.missing), ("derivative source missing", report.derivativeSourcesMissing)] {
            human += hashes.map { "\n  \(label)\t\($0)" }.joined()
        }
        human += report.unreferenced.map { blob in
            let why = blob.indexed ? "deleted, awaiting gc" : blob.isCutShortCacheWrite ? "a cache write cut short, for gc"
                : blob.isOrphan ? "a refused write's orphan, for gc" : "not in the index"
            return "\n  unreferenced\t\(blob.sha256)\t\(blob.size) bytes\t\(blob.role.rawValue)\t\(why)"
        }.joined()
        human += report.indexProblems.map { "\n  index\t\(SafeText.terminal($0))" }.joined()
        human += report.ladderProblems.map { "\n  ladder\t\($0)" }.joined()
        human += report.damagedCopies.map { "\n  local copy damaged, removed\t\($0)" }.joined()
        if !lost.isEmpty { human += "\n`docpreview recover` makes documents of the \(lost.count) lost originals again." }
        try CommandReport(json: json).succeed(report, human: human)
        if !report.isClean { throw ExitCode.failure }
    }
}

/// `docpreview gc`: quarantine what nothing refers to, sparing recent writes; refuse on a store that looks damaged.
struct GCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc", abstract: """
            Evict on-demand previews beyond their budget; move unreferenced blobs older than a grace period into the \
            quarantine, and delete what it held longer than that.
            """)

    @Option(help: "Spare anything younger than this many seconds (writes in flight); keep quarantined blobs this long.")
    var grace: Double = 3600

    @Flag(help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Remove even when the index fails its integrity check, lost track of originals, or more than half the store would go.")
    var force = false

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
        var report: CollectReport
        do {
            report = try store.collectGarbage(grace: grace, dryRun: dryRun, force: force, logger: .cli)
        } catch let refusal as CollectRefusal {
            try CommandReport(json: json).fail(PreviewError(.storeDamaged, "gc refused: \(refusal.description)"))
        }
        report.evictedPreviews = dryRun ? 0 : try store.evictPreviews(downTo: Limits.parseByteCount(previewCacheSize)!).derivatives
        let verb = dryRun ? "would quarantine" : "quarantined"
        try CommandReport(json: json).succeed(report, human: """
            evicted \(report.evictedPreviews) previews over the budget; \(verb) \(report.blobs) blobs (\(report.bytes) bytes); \
            \(dryRun ? "would delete" : "deleted") \(report.purged) from the quarantine and \(report.temporaries) temporary files
            """)
    }
}

/// `docpreview recover`: make documents of the originals the index lost.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover", abstract: """
            Make documents again of the originals on disk that the index has no row for (owner "recovered"), queued for their \
            previews; `verify` lists them.
            """)

    @Flag(help: "First move what gc quarantined back into the store (deleted documents come back too).")
    var quarantined = false

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let report = try storeOptions.documents().recover(includingQuarantine: quarantined)
        var human = """
            recovered \(report.recovered.count) documents (owner recovered; `docpreview worker` or `serve` makes their previews); \
            left \(report.derivatives) derivatives, \(report.deleted) deleted documents' blobs, \(report.orphans) orphans of refused \
            writes, \(report.damaged.count) damaged blobs
            """
        if quarantined { human += "; \(report.unquarantined) moved back from the quarantine" }
        human += report.recovered.map { "\n  \($0.documentID)\t\($0.kind)\t\($0.title)" }.joined()
        try CommandReport(json: json).succeed(report, human: human)
    }
}
