import Foundation
import PreviewCore

/// The storage cards' figures as kept (``StoreFigures``) and the sweep of lapsed share links they
/// count after, written once for both backends over the portable layer (``PortableDatabase``).
extension DocumentIndex {
    /// Figures for the storage cards of `owner` (nil: everyone's): counters kept with the rows, a
    /// few rows read whatever the store's size; the store's evictions with everyone's.
    package func statistics(owner: String?) async throws -> StorageStatistics {
        try await sweepLapsedShares()
        return try await readPlan {
            SQLPlan.rows(IndexStatistics.figures(owner: owner)).map { rows in
                var figures = try rows.map { row in
                    guard let name = row.text("name"), let value = row.integer("value") else { throw UnreadableRow(table: "figures") }
                    return (name: name, value: Int(value))
                }
                let evicted = figures.first { $0.name == IndexStatistics.evictions }?.value ?? 0
                figures.removeAll { $0.name == IndexStatistics.evictions }
                var statistics = StoreFigures.statistics(owner: owner, rows: figures)
                if owner == nil { statistics.evictedPreviews = evicted }
                return statistics
            }
        }
    }

    /// Marks the shares past their expiry lapsed (``CurrentDocuments/sweep(now:)``); writes only
    /// when one has expired since the last sweep.
    package func sweepLapsedShares() async throws {
        let due = try await readPlan { [dialect] in SQLPlan.rows(IndexStatistics.lapsedShares(in: dialect)).map { !$0.isEmpty } }
        if due { try await runPlan(serializing: nil) { [dialect] in .each([IndexStatistics.sweep(in: dialect)], then: ()) } }
    }
}

/// The statements of ``DocumentIndex/statistics(owner:)``, for the plans' tests too.
package enum IndexStatistics {
    /// The counter of evicted previews, among the figures' rows.
    static let evictions = "evicted_previews"

    /// A scope's kept figures (a few dozen rows at most: one per type and kind used) and the evictions.
    package static func figures(owner: String?) -> PortableSQL {
        """
        SELECT name, value FROM figures WHERE scope = \(StoreFigures.scope(owner: owner))
        UNION ALL SELECT name, value FROM counters WHERE name = \(evictions)
        """
    }

    /// A row when a share has expired since the last sweep.
    package static func lapsedShares(in dialect: SQLDialect) -> PortableSQL {
        "SELECT 1 FROM shares WHERE \(raw: CurrentDocuments.expired(now: dialect.currentTime)) LIMIT 1"
    }

    /// Marks the shares past their expiry lapsed.
    package static func sweep(in dialect: SQLDialect) -> PortableSQL {
        "\(raw: CurrentDocuments.sweep(now: dialect.currentTime))"
    }
}
