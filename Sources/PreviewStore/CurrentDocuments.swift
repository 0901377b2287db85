/// What listings and the `shared_documents` figure need, kept on the rows so that no read scans the
/// store (issue 43): each version of `documents` knows whether it is its document's latest
/// (`latest`) and how many live shares its document has (`live_shares`, the same on every version);
/// a share stops counting when it is revoked or when the sweep marks it `lapsed` past its expiry.
/// Triggers keep both columns and the figure in the transaction that changes a share or a version,
/// on both backends (the SQL is shared; each dialect names its current time).
///
/// Every sort and filter of a listing has a partial index over the latest versions, store-wide and
/// per owner (``listingIndexes``), so a page reads about as many rows as it returns at any size.
package enum CurrentDocuments {
    /// The version rows of `row`'s document.
    private static func group(_ row: String) -> String {
        "owner = \(row).owner AND type = \(row).type AND title = \(row).title"
    }

    /// Marks the latest version of `row`'s document, and only it.
    private static func markLatest(_ row: String) -> String {
        let newest = "(SELECT MAX(x.version) FROM documents x WHERE x.owner = \(row).owner AND x.type = \(row).type AND x.title = \(row).title)"
        return "UPDATE documents SET latest = (version = \(newest)) WHERE \(group(row)) AND latest <> (version = \(newest))"
    }

    /// Adds `delta` to the live shares of every version of the document that version `id` is one of,
    /// when `condition` holds.
    private static func addShares(_ delta: Int, document id: String, when condition: String) -> String {
        """
        UPDATE documents SET live_shares = live_shares + \(delta) WHERE (owner, type, title) IN
            (SELECT owner, type, title FROM documents WHERE id = \(id)) AND \(condition)
        """
    }

    /// True when share `row` counts: neither revoked nor lapsed.
    private static func counts(_ row: String) -> String {
        "\(row).revoked_at IS NULL AND NOT \(row).lapsed"
    }

    /// 1 when version `row` is a current document with a live share, else 0.
    private static func shared(_ row: String) -> String {
        "(CASE WHEN \(row).latest AND \(row).live_shares > 0 THEN 1 ELSE 0 END)"
    }

    /// Adds `delta` to the `shared_documents` figure of both of `row`'s scopes, when it is not 0.
    private static func addShared(_ delta: String, _ row: String) -> String {
        """
        INSERT INTO figures (scope, name, value)
        SELECT s.scope, 'shared_documents', \(delta) FROM (SELECT '' AS scope UNION ALL SELECT 'owner:' || \(row).owner) AS s
        WHERE \(delta) <> 0 ON CONFLICT (scope, name) DO UPDATE SET value = figures.value + excluded.value
        """
    }

    /// After a version is inserted: it takes its document's live shares, and the latest mark moves.
    package static let versionInserted = [
        """
        UPDATE documents SET live_shares = COALESCE((SELECT MAX(x.live_shares) FROM documents x
            WHERE x.owner = NEW.owner AND x.type = NEW.type AND x.title = NEW.title AND x.id <> NEW.id), 0) WHERE id = NEW.id
        """,
        markLatest("NEW")
    ]

    /// After a version is deleted: it leaves the figure, and the latest mark moves to what remains.
    package static let versionDeleted = [addShared("-\(shared("OLD"))", "OLD"), markLatest("OLD")]

    /// After a version's `latest` or `live_shares` changes.
    package static let versionChanged = [addShared("\(shared("NEW")) - \(shared("OLD"))", "NEW")]

    /// After a share is inserted.
    package static let shareInserted = [addShares(1, document: "NEW.document_id", when: counts("NEW"))]

    /// After a share is revoked, lapses, or moves to another version.
    package static let shareChanged = [
        addShares(-1, document: "OLD.document_id", when: counts("OLD")),
        addShares(1, document: "NEW.document_id", when: counts("NEW"))
    ]

    /// After a share is deleted.
    package static let shareDeleted = [addShares(-1, document: "OLD.document_id", when: counts("OLD"))]

    /// Shares past their expiry at `now` that still count (`shares_expiring` finds them).
    package static func expired(now: String) -> String {
        "revoked_at IS NULL AND NOT lapsed AND expires_at IS NOT NULL AND expires_at <= \(now)"
    }

    /// Marks the shares past their expiry lapsed; the triggers take them out of the counts. Readers
    /// that depend on the counts run it first: it reads only the shares that expired since.
    package static func sweep(now: String) -> String {
        "UPDATE shares SET lapsed = true WHERE \(expired(now: now))"
    }

    /// Sets the columns and the figure for a store indexed before they existed (in the migration,
    /// before the triggers exist).
    package static func backfill(now: String) -> [String] {
        [
            """
            UPDATE documents SET latest = (version = (SELECT MAX(version) FROM documents x
                WHERE x.owner = documents.owner AND x.type = documents.type AND x.title = documents.title))
            """,
            "UPDATE shares SET lapsed = (expires_at IS NOT NULL AND expires_at <= \(now))",
            """
            UPDATE documents SET live_shares = (SELECT COUNT(*) FROM shares s JOIN documents v ON v.id = s.document_id
                WHERE v.owner = documents.owner AND v.type = documents.type AND v.title = documents.title AND \(counts("s")))
            """,
            """
            INSERT INTO figures (scope, name, value)
            SELECT '', 'shared_documents', COUNT(*) FROM documents WHERE latest AND live_shares > 0
            UNION ALL SELECT 'owner:' || owner, 'shared_documents', COUNT(*) FROM documents WHERE latest AND live_shares > 0 GROUP BY owner
            """
        ]
    }

    /// A partial index over the latest versions: its name and columns, and the extra condition of
    /// its rows beyond `latest`.
    private struct ListingIndex {
        var name: String
        var columns: [String]
        var condition: String?
    }

    /// One index per sort order and per filter (each with the default order, newest first), for the
    /// whole store and per owner. `collated` wraps a text column that is sorted in byte order.
    private static func listingIndexes(collated: (String) -> String) -> [ListingIndex] {
        let orders: [(String, [String], String?)] = [
            ("created", ["created_at", "id"], nil),
            ("title", [collated("title_key"), "id"], nil),
            ("type", [collated("type"), collated("title_key"), "id"], nil),
            ("shares", ["live_shares", "id"], nil),
            ("of_type", ["type", "created_at", "id"], nil),
            ("kind", ["kind", "created_at", "id"], nil),
            ("status", ["preview_status", "created_at", "id"], nil),
            ("shared", ["created_at", "id"], "live_shares > 0")
        ]
        return orders.flatMap { name, columns, condition in
            [
                ListingIndex(name: "current_\(name)", columns: columns, condition: condition),
                ListingIndex(name: "current_owner_\(name)", columns: ["owner"] + columns, condition: condition)
            ]
        }
    }

    /// The indexes of the `school` filter (newest first, store-wide and per owner), added with the
    /// column, and the one an owner's schools are read from.
    package static func schoolIndexStatements() -> [String] {
        [
            "CREATE INDEX documents_current_school ON documents (school, created_at, id) WHERE latest",
            "CREATE INDEX documents_current_owner_school ON documents (owner, school, created_at, id) WHERE latest",
            "CREATE INDEX shares_document_school ON shares (document_id, school) WHERE school IS NOT NULL"
        ]
    }

    /// The index of the shared documents, newest first, store-wide or per owner.
    package static func sharedIndex(perOwner: Bool) -> String {
        perOwner ? "documents_current_owner_shared" : "documents_current_shared"
    }

    /// The `CREATE INDEX` statements of ``listingIndexes(collated:)``, and `shares_expiring`.
    package static func indexStatements(collated: (String) -> String = { $0 }) -> [String] {
        listingIndexes(collated: collated).map { index in
            "CREATE INDEX documents_\(index.name) ON documents (\(index.columns.joined(separator: ", "))) WHERE latest"
                + (index.condition.map { " AND \($0)" } ?? "")
        } + ["CREATE INDEX shares_expiring ON shares (expires_at) WHERE revoked_at IS NULL AND NOT lapsed AND expires_at IS NOT NULL"]
    }
}
