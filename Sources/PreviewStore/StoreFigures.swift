import PreviewCore

/// The storage statistics kept as counters, so that `stats` and `/metrics` read a few rows whatever
/// the store's size. Triggers on `documents` and `derivatives` keep them in the same transaction as
/// the rows they count, on both backends (the SQL below is shared; PostgreSQL wraps each trigger's
/// statements in a function).
///
/// - `figures (scope, name, value)`: scope `''` is the whole store, `owner:<owner>` one owner; names
///   `documents`, `versions`, `logical_bytes`, `stored_bytes`, `previews`, `preview_bytes`,
///   `type:<type>`, `kind:<kind>` and `school:<school>` (current versions), and `shared_documents`
///   (kept by ``CurrentDocuments``).
/// - `blob_users (scope, sha256, refs)`: how many versions in a scope name an original, so its bytes
///   and previews count once per scope (deduplication).
/// - `blob_previews (sha256, previews, bytes)`: the derivatives made from an original, an office
///   document's PDF pivot and its pages included (their root is the original).
/// - `derivative_figures (key, root, size)`: what each derivative row added, taken back when it goes.
///
/// Triggers on `documents` run before each row changes (on PostgreSQL, a row-level BEFORE trigger
/// sees the rows its statement changed before it), so a statement deleting several versions of a
/// document counts its current version once.
package enum StoreFigures {
    /// Both scopes of a row's owner.
    private static func scopes(_ row: String) -> String {
        "(SELECT '' AS scope UNION ALL SELECT 'owner:' || \(row).owner) AS s"
    }

    private static let upsert = "ON CONFLICT (scope, name) DO UPDATE SET value = figures.value + excluded.value"

    /// `row`'s (owner, type, title) group, with `extra` conditions.
    private static func group(_ row: String, _ extra: String = "") -> String {
        "SELECT 1 FROM documents WHERE owner = \(row).owner AND type = \(row).type AND title = \(row).title\(extra)"
    }

    /// The blob's previews and stored bytes, entering (`sign` 1) or leaving (-1) a scope.
    private static func blobFigures(_ row: String, sign: String) -> String {
        """
        (SELECT 'stored_bytes' AS name, \(sign) * \(row).size AS value
         UNION ALL SELECT 'previews', \(sign) * COALESCE((SELECT previews FROM blob_previews WHERE sha256 = \(row).sha256), 0)
         UNION ALL SELECT 'preview_bytes', \(sign) * COALESCE((SELECT bytes FROM blob_previews WHERE sha256 = \(row).sha256), 0)) AS f
        """
    }

    /// The per-school lines of ``documentInserted(schools:)``: the new version's school counts, the
    /// previous current version's no longer.
    private static let schoolsInserted = """

                 UNION ALL SELECT 'school:' || NEW.school, 1 WHERE NEW.school IS NOT NULL
                 UNION ALL SELECT * FROM (SELECT 'school:' || p.school AS name, -1 AS delta FROM (SELECT school FROM documents
                     WHERE owner = NEW.owner AND type = NEW.type AND title = NEW.title ORDER BY version DESC LIMIT 1) AS p
                     WHERE p.school IS NOT NULL) AS previous_school
        """

    /// The per-school lines of ``documentDeleted(schools:)``: a current version's school no longer
    /// counts, the next earlier version's does.
    private static let schoolsDeleted = """

                 UNION ALL SELECT 'school:' || OLD.school, -1
                     WHERE OLD.school IS NOT NULL AND NOT EXISTS (\(group("OLD", " AND version > OLD.version")))
                 UNION ALL SELECT * FROM (SELECT 'school:' || n.school AS name, 1 AS delta FROM (SELECT school FROM documents
                     WHERE owner = OLD.owner AND type = OLD.type AND title = OLD.title AND version < OLD.version
                     AND NOT EXISTS (\(group("OLD", " AND version > OLD.version"))) ORDER BY version DESC LIMIT 1) AS n
                     WHERE n.school IS NOT NULL) AS next_school
        """

    /// Before a version is inserted: it becomes its document's current version. `schools`: with
    /// the per-school counts (migration v17 on; the triggers made before it had no school column).
    package static func documentInserted(schools: Bool = true) -> [String] {
        [
            """
            INSERT INTO figures (scope, name, value)
            SELECT s.scope, d.name, SUM(d.delta) FROM \(scopes("NEW")),
                (SELECT 'versions' AS name, 1 AS delta
                 UNION ALL SELECT 'logical_bytes', NEW.size
                 UNION ALL SELECT 'kind:' || NEW.kind, 1
                 UNION ALL SELECT 'documents', 1 WHERE NOT EXISTS (\(group("NEW")))
                 UNION ALL SELECT 'type:' || NEW.type, 1 WHERE NOT EXISTS (\(group("NEW")))
                 UNION ALL SELECT * FROM (SELECT 'kind:' || kind AS name, -1 AS delta FROM documents
                     WHERE owner = NEW.owner AND type = NEW.type AND title = NEW.title ORDER BY version DESC LIMIT 1) AS \
                     previous\(schools ? schoolsInserted : "")) AS d
            WHERE true GROUP BY s.scope, d.name \(upsert)
            """,
            """
            INSERT INTO figures (scope, name, value)
            SELECT s.scope, f.name, f.value FROM \(scopes("NEW")), \(blobFigures("NEW", sign: "1"))
            WHERE NOT EXISTS (SELECT 1 FROM blob_users u WHERE u.scope = s.scope AND u.sha256 = NEW.sha256) \(upsert)
            """,
            """
            INSERT INTO blob_users (scope, sha256, refs) SELECT s.scope, NEW.sha256, 1 FROM \(scopes("NEW")) WHERE true
            ON CONFLICT (scope, sha256) DO UPDATE SET refs = blob_users.refs + 1
            """
        ]
    }

    /// Before a version is deleted: when it is current, the next earlier one becomes current, or the
    /// document goes. `schools` as in ``documentInserted(schools:)``.
    package static func documentDeleted(schools: Bool = true) -> [String] {
        [
            """
            INSERT INTO figures (scope, name, value)
            SELECT s.scope, d.name, SUM(d.delta) FROM \(scopes("OLD")),
                (SELECT 'versions' AS name, -1 AS delta
                 UNION ALL SELECT 'logical_bytes', -OLD.size
                 UNION ALL SELECT 'kind:' || OLD.kind, -1 WHERE NOT EXISTS (\(group("OLD", " AND version > OLD.version")))
                 UNION ALL SELECT * FROM (SELECT 'kind:' || kind AS name, 1 AS delta FROM documents
                     WHERE owner = OLD.owner AND type = OLD.type AND title = OLD.title AND version < OLD.version
                     AND NOT EXISTS (\(group("OLD", " AND version > OLD.version"))) ORDER BY version DESC LIMIT 1) AS \
                     next\(schools ? schoolsDeleted : "")
                 UNION ALL SELECT 'documents', -1 WHERE NOT EXISTS (\(group("OLD", " AND version <> OLD.version")))
                 UNION ALL SELECT 'type:' || OLD.type, -1 WHERE NOT EXISTS (\(group("OLD", " AND version <> OLD.version")))) AS d
            WHERE true GROUP BY s.scope, d.name \(upsert)
            """,
            """
            INSERT INTO figures (scope, name, value)
            SELECT s.scope, f.name, f.value FROM \(scopes("OLD")), \(blobFigures("OLD", sign: "-1"))
            WHERE EXISTS (SELECT 1 FROM blob_users u WHERE u.scope = s.scope AND u.sha256 = OLD.sha256 AND u.refs <= 1) \(upsert)
            """,
            "UPDATE blob_users SET refs = refs - 1 WHERE sha256 = OLD.sha256 AND scope IN ('', 'owner:' || OLD.owner)",
            "DELETE FROM blob_users WHERE sha256 = OLD.sha256 AND refs <= 0"
        ]
    }

    /// Before a version is relabelled: the current version's type moves. Every version of a
    /// document is relabelled together, to a label its owner does not use, so the current version
    /// is the highest under either label.
    package static let documentRelabelled = [
        """
        INSERT INTO figures (scope, name, value)
        SELECT s.scope, d.name, d.delta FROM \(scopes("OLD")),
            (SELECT 'type:' || OLD.type AS name, -1 AS delta UNION ALL SELECT 'type:' || NEW.type, 1) AS d
        WHERE OLD.type <> NEW.type AND OLD.version = (SELECT MAX(version) FROM documents WHERE owner = OLD.owner
            AND ((type = OLD.type AND title = OLD.title) OR (type = NEW.type AND title = NEW.title))) \(upsert)
        """
    ]

    /// Before a version's school changes: when it is its document's current version, the count moves.
    package static let documentSchoolChanged = [
        """
        INSERT INTO figures (scope, name, value)
        SELECT s.scope, d.name, d.delta FROM \(scopes("OLD")),
            (SELECT 'school:' || OLD.school AS name, -1 AS delta WHERE OLD.school IS NOT NULL
             UNION ALL SELECT 'school:' || NEW.school, 1 WHERE NEW.school IS NOT NULL) AS d
        WHERE OLD.school IS DISTINCT FROM NEW.school AND NOT EXISTS (\(group("OLD", " AND version > OLD.version"))) \(upsert)
        """
    ]

    /// The previews and bytes a derivative row adds to (`sign` 1) or takes from (-1) the scopes using its root.
    private static func derivativeFigures(key: String, sign: String) -> String {
        """
        INSERT INTO figures (scope, name, value)
        SELECT u.scope, f.name, \(sign) * CASE f.name WHEN 'previews' THEN 1 ELSE d.size END
        FROM derivative_figures d JOIN blob_users u ON u.sha256 = d.root, (SELECT 'previews' AS name UNION ALL SELECT 'preview_bytes') AS f
        WHERE d.key = \(key) \(upsert)
        """
    }

    /// After a derivative is recorded (an ignored duplicate fires nothing).
    package static let derivativeInserted = [
        """
        INSERT INTO derivative_figures (key, root, size) VALUES (NEW.key,
            COALESCE((SELECT p.source_sha256 FROM derivatives p WHERE p.result_sha256 = NEW.source_sha256 AND p.operation = \
            '\(DerivativeOperation.convert.rawValue)' LIMIT 1),
                     NEW.source_sha256),
            COALESCE((SELECT size FROM blobs WHERE sha256 = NEW.result_sha256), 0))
        """,
        """
        INSERT INTO blob_previews (sha256, previews, bytes) SELECT root, 1, size FROM derivative_figures WHERE key = NEW.key
        ON CONFLICT (sha256) DO UPDATE SET previews = blob_previews.previews + 1, bytes = blob_previews.bytes + excluded.bytes
        """,
        derivativeFigures(key: "NEW.key", sign: "1")
    ]

    /// Before a derivative is forgotten.
    package static let derivativeDeleted = [
        derivativeFigures(key: "OLD.key", sign: "-1"),
        """
        UPDATE blob_previews SET previews = previews - 1, bytes = bytes - (SELECT size FROM derivative_figures WHERE key = OLD.key)
        WHERE sha256 = (SELECT root FROM derivative_figures WHERE key = OLD.key)
        """,
        "DELETE FROM derivative_figures WHERE key = OLD.key"
    ]

    /// Fills the tables from the rows of a store indexed before they existed (run once, in the migration).
    package static let backfill = [
        """
        INSERT INTO blob_users (scope, sha256, refs)
        SELECT '', sha256, COUNT(*) FROM documents GROUP BY sha256
        UNION ALL SELECT 'owner:' || owner, sha256, COUNT(*) FROM documents GROUP BY owner, sha256
        """,
        """
        INSERT INTO derivative_figures (key, root, size)
        SELECT v.key, COALESCE((SELECT p.source_sha256 FROM derivatives p WHERE p.result_sha256 = v.source_sha256
                                AND p.operation = '\(DerivativeOperation.convert.rawValue)' LIMIT 1), v.source_sha256), COALESCE(b.size, 0)
        FROM derivatives v LEFT JOIN blobs b ON b.sha256 = v.result_sha256
        """,
        "INSERT INTO blob_previews (sha256, previews, bytes) SELECT root, COUNT(*), SUM(size) FROM derivative_figures GROUP BY root",
        """
        INSERT INTO figures (scope, name, value)
        SELECT scope, name, SUM(value) FROM (
            SELECT x.scope, 'versions' AS name, 1 AS value FROM \(scopedDocuments)
            UNION ALL SELECT x.scope, 'logical_bytes', x.size FROM \(scopedDocuments)
            UNION ALL SELECT x.scope, 'documents', 1 FROM \(scopedDocuments) WHERE \(isCurrent)
            UNION ALL SELECT x.scope, 'type:' || x.type, 1 FROM \(scopedDocuments) WHERE \(isCurrent)
            UNION ALL SELECT x.scope, 'kind:' || x.kind, 1 FROM \(scopedDocuments) WHERE \(isCurrent)
            UNION ALL SELECT u.scope, 'stored_bytes', b.size FROM blob_users u JOIN blobs b ON b.sha256 = u.sha256
            UNION ALL SELECT u.scope, 'previews', p.previews FROM blob_users u JOIN blob_previews p ON p.sha256 = u.sha256
            UNION ALL SELECT u.scope, 'preview_bytes', p.bytes FROM blob_users u JOIN blob_previews p ON p.sha256 = u.sha256
        ) AS all_figures GROUP BY scope, name
        """
    ]

    /// Every version in each of its two scopes, as `x`.
    private static let scopedDocuments = """
        (SELECT '' AS scope, d.* FROM documents d UNION ALL SELECT 'owner:' || d.owner, d.* FROM documents d) AS x
        """

    private static let isCurrent = """
        NOT EXISTS (SELECT 1 FROM documents y WHERE y.owner = x.owner AND y.type = x.type AND y.title = x.title AND y.version > x.version)
        """

    /// The scope of `owner`'s figures (the whole store's when nil).
    package static func scope(owner: String?) -> String {
        owner.map { "owner:\($0)" } ?? ""
    }

    /// The statistics in the figures `rows` (name, value) of `owner`'s scope.
    package static func statistics(owner: String?, rows: [(name: String, value: Int)]) -> StorageStatistics {
        var values: [String: Int] = [:]
        var byType: [String: Int] = [:], byKind: [String: Int] = [:], bySchool: [String: Int] = [:]
        for (name, value) in rows {
            if name.hasPrefix("school:") {
                if value > 0 { bySchool[String(name.dropFirst(7))] = value }
            } else if name.hasPrefix("type:") {
                let type = String(name.dropFirst(5))
                if value > 0 { byType[type.isEmpty ? StorageStatistics.unspecifiedType : type] = value }
            } else if name.hasPrefix("kind:") {
                if value > 0 { byKind[String(name.dropFirst(5))] = value }
            } else {
                values[name] = value
            }
        }
        var statistics = StorageStatistics(
            owner: owner, documents: values["documents"] ?? 0, versions: values["versions"] ?? 0, byType: byType, byKind: byKind,
            logicalBytes: values["logical_bytes"] ?? 0, storedBytes: values["stored_bytes"] ?? 0,
            previews: values["previews"] ?? 0, previewBytes: values["preview_bytes"] ?? 0)
        statistics.sharedDocuments = values["shared_documents"] ?? 0
        statistics.bySchool = bySchool
        return statistics
    }
}
