import Foundation
import PreviewCore
import PreviewDomain

/// What each view of a share's page read and watched (``ShareViewRecord``) and each share's
/// totals (``ShareReadingSummary``, kept as reports come so that a list of shares reads one row
/// each), written once for both backends over the portable layer.
extension DocumentIndex {
    /// Adds a report's totals (``ShareReading/totals(of:)``) to view `view` of share `share` at
    /// `now`, bounded by the time the view has lasted (``ShareReading/updated(_:with:at:)``): a new
    /// view starts then, and a new visit when the visitor's last view ended more than
    /// ``ShareReading/visitGap`` before. One share's reports take turns; the share keeps its newest
    /// ``ShareViewRecord/kept`` views, and its totals for ever.
    package func recordShareView(
        share: String, view: String, visitor: String, totals: ShareReading.Totals, at now: Date
    ) async throws {
        try await runPlan(serializing: "share-views:" + share) {
            .statement(
                """
                SELECT v.*, (SELECT max(updated_at) FROM share_views WHERE share_id = \(share) AND visitor = \(visitor)) AS visitor_last
                FROM (SELECT 1 AS one) AS o LEFT JOIN share_views AS v ON v.share_id = \(share) AND v.view_id = \(view)
                """
            ) { rows in
                let kept = try rows.first.flatMap { $0.text("view_id") == nil ? nil : try ShareViewRecord(row: $0) }
                let newVisit = kept == nil && (rows.first?.date("visitor_last").map { now.timeIntervalSince($0) > ShareReading.visitGap } ?? true)
                let updated = ShareReading.updated(
                    kept ?? ShareViewRecord(view: view, visitor: visitor, startedAt: now, updatedAt: now), with: totals, at: now)
                return .statement("SELECT * FROM share_readings WHERE share_id = \(share)") { rows in
                    let summary = try (rows.first.map(ShareReadingSummary.init(row:)) ?? ShareReadingSummary())
                        .adding(updated, replacing: kept, newVisit: newVisit)
                    var statements: [PortableSQL] = [
                        """
                        INSERT INTO share_views (share_id, view_id, visitor, started_at, updated_at, pages, played, duration, zooms, downloads)
                        VALUES (\(share), \(view), \(updated.visitor), \(updated.startedAt), \(updated.updatedAt), \(JSONText.pages(updated.pages)),
                                \(JSONText.encoded(updated.played)), \(updated.duration), \(updated.actions.zooms), \(updated.actions.downloads))
                        ON CONFLICT (share_id, view_id) DO UPDATE SET updated_at = excluded.updated_at, pages = excluded.pages,
                            played = excluded.played, duration = excluded.duration, zooms = excluded.zooms, downloads = excluded.downloads
                        """,
                        """
                        INSERT INTO share_readings (share_id, visits, last_visit_at, pages, played, duration, zooms, downloads)
                        VALUES (\(share), \(summary.visits), \(summary.lastVisitAt), \(JSONText.pages(summary.pages)),
                                \(JSONText.encoded(summary.played)), \(summary.duration), \(summary.actions.zooms), \(summary.actions.downloads))
                        ON CONFLICT (share_id) DO UPDATE SET visits = excluded.visits, last_visit_at = excluded.last_visit_at,
                            pages = excluded.pages, played = excluded.played, duration = excluded.duration, zooms = excluded.zooms,
                            downloads = excluded.downloads
                        """
                    ]
                    if kept == nil {
                        statements.append(
                            """
                            DELETE FROM share_views WHERE share_id = \(share) AND started_at < (SELECT started_at FROM share_views
                                WHERE share_id = \(share) ORDER BY started_at DESC LIMIT 1 OFFSET \(ShareViewRecord.kept - 1))
                            """)
                    }
                    return .each(statements, then: ())
                }
            }
        }
    }

    /// Share `id`'s newest `limit` views, newest first.
    package func shareViews(share id: String, limit: Int) async throws -> [ShareViewRecord] {
        try await readPlan {
            SQLPlan.rows("SELECT * FROM share_views WHERE share_id = \(id) ORDER BY started_at DESC, view_id DESC LIMIT \(limit)").map {
                try $0.map(ShareViewRecord.init(row:))
            }
        }
    }

    /// The totals of each of `shares` (empty before its first report), by share, in one read.
    package func shareReadingSummaries(shares: [String]) async throws -> [String: ShareReadingSummary] {
        guard !shares.isEmpty else { return [:] }
        let kept = try await readPlan {
            SQLPlan.rows("SELECT * FROM share_readings WHERE share_id IN (\(PortableSQL.list(shares)))").map { rows in
                try rows.map { row in (row.text("share_id") ?? "", try ShareReadingSummary(row: row)) }
            }
        }
        let found = Dictionary(kept, uniquingKeysWith: { first, _ in first })
        return Dictionary(uniqueKeysWithValues: shares.map { ($0, found[$0] ?? ShareReadingSummary()) })
    }
}

extension ShareViewRecord {
    /// A view as either backend returns its row.
    init(row: PortableRow) throws {
        guard let view = row.text("view_id"), let visitor = row.text("visitor"), let startedAt = row.date("started_at"),
            let updatedAt = row.date("updated_at"), let pages = row.text("pages").flatMap(JSONText.pages(from:)),
            let played = row.text("played").flatMap({ JSONText.decoded([PlayedSpan].self, from: $0) })
        else { throw UnreadableRow(table: "share_views") }
        self.init(
            view: view, visitor: visitor, startedAt: startedAt, updatedAt: updatedAt, pages: pages, played: played, duration: row.real("duration"),
            actions: ShareViewActions(row: row))
    }
}

extension ShareReadingSummary {
    /// A share's totals as either backend returns their row.
    init(row: PortableRow) throws {
        guard let visits = row.integer("visits"), let pages = row.text("pages").flatMap(JSONText.pages(from:)),
            let played = row.text("played").flatMap({ JSONText.decoded([PlayedSpan].self, from: $0) })
        else { throw UnreadableRow(table: "share_readings") }
        self.init(
            visits: Int(visits), lastVisitAt: row.date("last_visit_at"), pages: pages, played: played, duration: row.real("duration"),
            actions: ShareViewActions(row: row))
    }
}

extension ShareViewActions {
    /// The zooms and downloads of a view's or a share's row.
    init(row: PortableRow) {
        self.init(zooms: Int(row.integer("zooms") ?? 0), downloads: Int(row.integer("downloads") ?? 0))
    }
}

/// The JSON texts a reading's columns hold: seconds by page number as an object, played stretches as `[{from, to}]`.
private enum JSONText {
    static func pages(_ pages: [Int: Double]) -> String {
        encoded(Dictionary(uniqueKeysWithValues: pages.map { ("\($0.key)", $0.value) }))
    }

    static func pages(from text: String) -> [Int: Double]? {
        decoded([String: Double].self, from: text).map { object in
            Dictionary(uniqueKeysWithValues: object.compactMap { key, seconds in Int(key).map { ($0, seconds) } })
        }
    }

    static func encoded(_ value: some Encodable) -> String {
        String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self)
    }

    static func decoded<T: Decodable>(_ type: T.Type, from text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
