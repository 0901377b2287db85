import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments

/// `docpreview stats [--owner O]`: the storage cards, from the index.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Storage statistics, overall or for one owner.")

    @Option(help: "Only this owner's documents.")
    var owner: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let statistics = try await storeOptions.documents().statistics(owner: owner)
        func listed(_ counts: [String: Int]) -> String {
            counts.isEmpty ? "—" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        let human = """
            documents \(statistics.documents) (\(statistics.versions) versions)\(owner.map { " for \($0)" } ?? "")
            most common type: \(statistics.mostCommonType ?? "—")
            by type: \(listed(statistics.byType))
            by kind: \(listed(statistics.byKind))
            by school: \(SafeText.terminal(listed(statistics.bySchool)))
            logical \(statistics.logicalBytes) bytes, stored \(statistics.storedBytes) bytes, dedup ratio \
            \(String(format: "%.2f", statistics.dedupRatio))
            previews \(statistics.previews), \(statistics.previewBytes) bytes
            """ + (statistics.openUploads.map { "\nresumable uploads open \($0), \(statistics.stagedUploadBytes ?? 0) bytes staged" } ?? "")
        try CommandReport(json: json).succeed(statistics, human: human)
    }
}
