import Foundation
import PreviewCore

/// The storage cards' figures as kept (``StoreFigures``), the same counted again for `verify`, and
/// the sweep of lapsed share links they count after, written once for both backends over the
/// portable layer (``PortableDatabase``).
extension DocumentIndex {
    /// Figures for the storage cards of `owner` (nil: everyone's): counters kept with the rows, a
    /// few rows read whatever the store's size; the store's evictions with everyone's.
    public func statistics(owner: String?) async throws -> StorageStatistics {
        try await sweepLapsedShares()
        return try await readPlan {
            SQLPlan.rows(IndexStatistics.figures(owner: owner)).map { rows in
                var figures = try rows.map { row in
                    guard let name = row.text("name"), let value = row.integer("value") else { throw UnreadableRow(table: "figures") }
                    return (name: name, value: Int(value))
                }
                let evicted = figures.first { $0.name == IndexStatistics.evictedPreviews }?.value ?? 0
                figures.removeAll { $0.name == IndexStatistics.evictedPreviews }
                var statistics = StoreFigures.statistics(owner: owner, rows: figures)
                if owner == nil { statistics.evictedPreviews = evicted }
                return statistics
            }
        }
    }

    /// The same figures counted again from every row (slow): what `verify` checks the kept ones
    /// against. One statement, so that every count is of one moment on either backend.
    public func recountStatistics(owner: String?) async throws -> StorageStatistics {
        try await sweepLapsedShares()
        return try await readPlan { [dialect] in
            SQLPlan.rows(IndexStatistics.recount(owner: owner, in: dialect)).map { rows in
                guard let row = rows.first else { throw UnreadableRow(table: "documents (a recount)") }
                func number(_ column: String) throws -> Int {
                    guard let value = row.integer(column) else { throw UnreadableRow(table: "documents (a recount's \(column))") }
                    return Int(value)
                }
                func counts(_ column: String) throws -> [String: Int] {
                    guard let text = row.text(column) else { throw UnreadableRow(table: "documents (a recount's \(column))") }
                    return try JSONDecoder().decode([String: Int].self, from: Data(text.utf8))
                }
                var statistics = StorageStatistics(
                    owner: owner, documents: try number("documents"), versions: try number("versions"), byType: try counts("by_type"),
                    byKind: try counts("by_kind"), logicalBytes: try number("logical_bytes"), storedBytes: try number("stored_bytes"),
                    previews: try number("previews"), previewBytes: try number("preview_bytes"))
                statistics.sharedDocuments = try number("shared_documents")
                statistics.bySchool = try counts("by_school")
                if owner == nil { statistics.evictedPreviews = try number("evicted_previews") }
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
    /// The counter of evicted previews (``DocumentIndex/evictPreviews(source:downTo:)`` adds to it).
    static let evictedPreviews = "evicted_previews"

    /// A scope's kept figures (a few dozen rows at most: one per type and kind used) and the evictions.
    package static func figures(owner: String?) -> PortableSQL {
        """
        SELECT name, value FROM figures WHERE scope = \(StoreFigures.scope(owner: owner))
        UNION ALL SELECT name, value FROM counters WHERE name = \(evictedPreviews)
        """
    }

    /// Every figure of `owner` (nil: everyone) counted from the rows, as one row: counts and sums,
    /// and the counts by type, kind and school as JSON objects. The current documents are the
    /// newest versions counted anew, not the kept `latest` marks; previews are the derivatives of
    /// the originals and of office documents' PDF pivots (pages are rendered from those).
    package static func recount(owner: String?, in dialect: SQLDialect) -> PortableSQL {
        let scope: PortableSQL = owner.map { "WHERE owner = \($0)" } ?? ""
        func grouped(_ column: String, _ condition: String = "") -> PortableSQL {
            let name = "CASE \(column) WHEN '' THEN '\(StorageStatistics.unspecifiedType)' ELSE \(column) END"
            let counts = "SELECT \(name) AS name, COUNT(*) AS n FROM current \(condition) GROUP BY 1"
            return "(SELECT \(raw: dialect.jsonObject(key: "name", value: "n")) FROM (\(raw: counts)) g)"
        }
        func sum(_ rows: String) -> PortableSQL { "(SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM \(raw: rows))" }
        return """
            WITH scoped AS (SELECT * FROM documents \(scope)),
            current AS (SELECT * FROM scoped d WHERE version = (SELECT MAX(x.version) FROM documents x
                WHERE x.owner = d.owner AND x.type = d.type AND x.title = d.title)),
            pivots AS (SELECT result_sha256 AS sha256 FROM derivatives WHERE operation = \(DerivativeOperation.convert)
                AND source_sha256 IN (SELECT sha256 FROM scoped)),
            results AS (SELECT COALESCE(b.size, 0) AS size FROM derivatives v LEFT JOIN blobs b ON b.sha256 = v.result_sha256
                WHERE v.source_sha256 IN (SELECT sha256 FROM scoped) OR v.source_sha256 IN (SELECT sha256 FROM pivots))
            SELECT
                (SELECT COUNT(*) FROM current) AS documents,
                (SELECT COUNT(*) FROM scoped) AS versions,
                \(grouped("type")) AS by_type,
                \(grouped("kind")) AS by_kind,
                \(grouped("school", "WHERE school IS NOT NULL")) AS by_school,
                \(sum("scoped")) AS logical_bytes,
                \(sum("blobs WHERE sha256 IN (SELECT sha256 FROM scoped)")) AS stored_bytes,
                (SELECT COUNT(*) FROM results) AS previews,
                \(sum("results")) AS preview_bytes,
                (SELECT COUNT(*) FROM current d WHERE \(raw: IndexSQL.liveShares(now: dialect.currentTime)) > 0) AS shared_documents,
                (SELECT CAST(COALESCE(MAX(value), 0) AS BIGINT) FROM counters WHERE name = \(evictedPreviews)) AS evicted_previews
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
