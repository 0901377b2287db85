/// The SQL both index drivers share, where SQLite's and PostgreSQL's dialects agree; each driver
/// keeps only what differs (placeholders, locks, types). The schema's shared parts are
/// ``StoreFigures`` and ``JobLifecycle``.
package enum IndexSQL {
    /// `live`: the originals of documents, the pictures of links' cards, and what is derived from
    /// them, transitively (an office document's PDF pivot, then its pages). Derivatives of anything
    /// else belong to deleted documents.
    package static let live = """
        WITH RECURSIVE live(sha256) AS (SELECT sha256 FROM documents
            UNION SELECT picture_sha256 FROM link_cards WHERE picture_sha256 IS NOT NULL
            UNION SELECT v.result_sha256 FROM derivatives v JOIN live l ON v.source_sha256 = l.sha256)
        """

    /// True for rows `d` of `documents` that are their document's latest version.
    package static let isLatestVersion = """
        d.version = (SELECT MAX(version) FROM documents x WHERE x.owner = d.owner AND x.type = d.type AND x.title = d.title)
        """

    /// The live shares of the document that version `d` is one of: not revoked, not expired at
    /// `now` (each dialect's current time, in the form its dates are stored).
    package static func liveShares(now: String) -> String {
        """
        (SELECT COUNT(*) FROM shares s JOIN documents v ON v.id = s.document_id WHERE v.owner = d.owner AND v.type = d.type \
        AND v.title = d.title AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > \(now)))
        """
    }

    /// Every version `d` of the document that version `v` is one of; the caller names `v.id` and orders.
    package static let versionsOfOne = """
        SELECT d.* FROM documents d JOIN documents v ON d.owner = v.owner AND d.type = v.type AND d.title = v.title
        """

    /// The ids of every version of the document that version `id` is one of, as a subquery: however
    /// many versions it has, none of their ids is bound.
    package static func versionIDs(of id: String) -> PortableSQL {
        "SELECT d.id FROM documents d JOIN documents v ON d.owner = v.owner AND d.type = v.type AND d.title = v.title WHERE v.id = \(id)"
    }
}
