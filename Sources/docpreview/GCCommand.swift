import ArgumentParser
import Foundation
import Logging
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `docpreview gc`: quarantine what nothing refers to, sparing recent writes; refuse on a store that looks damaged.
struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: """
            Evict on-demand previews beyond their budget; move unreferenced blobs older than a grace period into the \
            quarantine, and delete what it held longer than that; remove resumable uploads whose time ran out.
            """)

    @Option(help: "Spare anything younger than this many seconds (writes in flight); keep quarantined blobs this long.")
    var grace: Double = 3600

    @Flag(help: "Report what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Remove even when the index fails its integrity check, lost track of originals, or more than half the store would go.")
    var force = false

    @Option(
        help: ArgumentHelp(
            "Keep at most this much of on-demand previews (pages and sizes clients asked for), e.g. 10GB.",
            valueName: "size"))
    var previewCacheSize = Limits.describe(byteCount: Limits().previewCacheBytes)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try OptionRange.check("--grace", grace, 0...(10 * 365 * 86_400))
        guard Limits.parseByteCount(previewCacheSize) != nil else { throw ValidationError("--preview-cache-size takes a size, e.g. 10GB.") }
    }

    func run() async throws {
        let backend = try await storeOptions.backend(statementTimeout: StoreBackend.wholeStoreStatementTimeout)
        let store = backend.store
        var report: CollectReport
        do {
            report = try await store.collectGarbage(grace: grace, dryRun: dryRun, force: force, logger: .cli)
        } catch let refusal as CollectRefusal {
            try CommandReport(json: json).fail(PreviewError(.storeDamaged, "gc refused: \(refusal.description)"))
        }
        report.evictedPreviews = await dryRun ? 0 : try store.evictPreviews(downTo: Limits.parseByteCount(previewCacheSize)!).derivatives
        report.uploads = try await DocumentService(backend: backend, offload: .commandLine, logger: .cli).collectUploads(grace: grace, dryRun: dryRun)
        let verb = dryRun ? "would quarantine" : "quarantined"
        try CommandReport(json: json).succeed(
            report,
            human: """
                evicted \(report.evictedPreviews) previews over the budget; \(verb) \(report.blobs) blobs (\(report.bytes) bytes); \
                \(dryRun ? "would delete" : "deleted") \(report.purged) from the quarantine and \(report.temporaries) temporary files; \
                \(dryRun ? "would remove" : "removed") \(report.uploads.uploads) expired uploads and \(report.uploads.strayParts) stray upload parts
                """)
    }
}
