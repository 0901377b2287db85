import Foundation
import PostgresNIO
import PreviewCore
import PreviewStore

/// Listing, versions, deletion and relabelling in PostgreSQL; the same behaviour as ``SQLiteIndex``'s.
extension PostgresIndex {
    public func list(_ query: DocumentQuery) throws -> DocumentPage {
        try list(query, search: nil)
    }

    /// A listing's page, its title search made the given way (nil: the way ``TextSearch`` chooses).
    func list(_ query: DocumentQuery, search: TextSearch?) throws -> DocumentPage {
        if query.shared != nil || query.sort == .mostShared { try sweepLapsedShares() }
        let page = { (search: TextSearch) in
            let rows = try connections.query(PostgresQuery(DocumentListing.statement(query, search: search, in: .postgres)))
            return DocumentListing.page(try rows.map { row in
                (try Document(row: row), try (0..<query.sort.keyCount).map { try row["sort_key_\($0)"].decode(String.self) })
            }, of: query)
        }
        if let search { return try page(search) }
        func count(_ statement: PortableSQL) throws -> Int {
            try connections.query(PostgresQuery(statement)).first?["n"].decode(Int.self) ?? 0
        }
        return try TextSearch.page(for: query, page: page, matches: { key in try count(DocumentListing.textMatches(key, in: .postgres)) },
                                   candidates: { limit in try count(DocumentListing.candidates(query, upTo: limit, in: .postgres)) })
    }

    /// Marks the shares past their expiry lapsed (``CurrentDocuments/sweep(now:)``); an index scan
    /// that finds nothing when none has expired since the last sweep.
    func sweepLapsedShares() throws {
        try connections.query(PostgresQuery(unsafeSQL: CurrentDocuments.sweep(now: "now()")))
    }

    public func versions(of id: String) throws -> [Document] {
        try connections.query(Self.versionsQuery(of: id)).map(Document.init(row:))
    }

    private static func versionsQuery(of id: String, lock: Bool = false) -> PostgresQuery {
        "\(unescaped: IndexSQL.versionsOfOne) WHERE v.id = \(id) ORDER BY d.version DESC \(unescaped: lock ? "FOR UPDATE OF d" : "")"
    }

    public func delete(documentID id: String, version: Int?) throws -> Deletion {
        try connections.transaction { session in
            let all = try session.query(Self.versionsQuery(of: id, lock: true)).map(Document.init(row:))
            let removed = all.filter { version == nil || $0.version == version }
            guard !removed.isEmpty else { return Deletion(versions: [], cancelledJobs: 0) }
            let ids = removed.map(\.id)
            let cancelled = try session.query("""
                DELETE FROM jobs WHERE document_id = ANY(\(ids)) RETURNING status
                """).filter { [.queued, .processing].contains(try $0.decode("status", as: JobRecord.Status.self)) }.count
            if let newest = all.first(where: { !ids.contains($0.id) }) {
                try session.query("UPDATE shares SET document_id = \(newest.id) WHERE version IS NULL AND document_id = ANY(\(ids))")
            }
            try session.query("UPDATE shares SET revoked_at = now() WHERE revoked_at IS NULL AND document_id = ANY(\(ids))")
            try session.query("DELETE FROM documents WHERE id = ANY(\(ids))")
            return Deletion(versions: removed, cancelledJobs: cancelled)
        }
    }

    public func relabel(documentID id: String, to labels: Relabelling) throws -> Document? {
        try connections.transaction { session in
            let versions = try session.query(Self.versionsQuery(of: id, lock: true)).map(Document.init(row:))
            guard let latest = versions.first else { return nil }
            if labels.renames(latest) {
                // The same lock that numbers versions: an upload under the new label waits for this rename.
                let type = Document.typeColumn(labels.type)
                let key = "\(latest.owner)\u{1F}\(type)\u{1F}\(labels.title)"
                try session.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))")
                let taken = try session.query("""
                    SELECT 1 FROM documents WHERE owner = \(latest.owner) AND type = \(type) AND title = \(labels.title) LIMIT 1
                    """)
                if !taken.isEmpty { throw LabelTaken(type: labels.type, title: labels.title) }
            }
            for version in labels.applied(to: versions) {
                try session.query("""
                    UPDATE documents SET title = \(version.title), title_key = \(version.titleKey), type = \(version.typeColumn),
                        description = \(version.description), school = \(version.school), search_key = \(version.searchKey)
                    WHERE id = \(version.id)
                    """)
            }
            return try session.query("SELECT * FROM documents WHERE id = \(id)").first.map(Document.init(row:))
        }
    }

    // MARK: Shares

    public func insertShare(_ share: ShareRecord) throws {
        try connections.query(PostgresQuery(share.insertion))
    }

    public func shareWithSchools(documentIDs: [String], schools: [String], making: (String) -> ShareRecord) throws -> [ShareRecord] {
        try connections.transaction { session in
            // Two changes of one document's schools take turns.
            try session.query("SELECT id FROM documents WHERE id = ANY(\(documentIDs)) FOR UPDATE")
            return try Self.schoolShares(in: session).share(documentIDs: documentIDs, schools: schools, making: making)
        }
    }

    public func schools(owner: String?) throws -> [School] {
        try connections.withConnection { session in try Self.schoolShares(in: session).schools(owner: owner) }
    }

    private static func schoolShares(in session: Session) -> SchoolShares {
        SchoolShares(shares: { sql in try session.query(PostgresQuery(sql)).map(ShareRecord.init(row:)) }) { sql in
            try session.query(PostgresQuery(sql)).map { (try $0["name"].decode(String.self), try $0["n"].decode(Int.self)) }
        }
    }

    public func share(id: String) throws -> ShareRecord? {
        try connections.query("SELECT * FROM shares WHERE id = \(id)").first.map(ShareRecord.init(row:))
    }

    public func share(tokenSha256: String) throws -> ShareRecord? {
        try connections.query("SELECT * FROM shares WHERE token_sha256 = \(tokenSha256)").first.map(ShareRecord.init(row:))
    }

    public func shares(documentIDs: [String]) throws -> [ShareRecord] {
        try connections.query("SELECT * FROM shares WHERE document_id = ANY(\(documentIDs)) ORDER BY created_at DESC, id").map(ShareRecord.init(row:))
    }

    public func revokeShare(id: String) throws -> Bool {
        !(try connections.query("UPDATE shares SET revoked_at = now() WHERE id = \(id) AND revoked_at IS NULL RETURNING id")).isEmpty
    }

    public func recordShareVisit(id: String, _ kind: ShareVisit.Kind) throws {
        try connections.transaction { session in
            try session.query(kind == .downloaded ? "UPDATE shares SET download_count = download_count + 1 WHERE id = \(id)"
                                                  : "UPDATE shares SET opened_count = opened_count + 1, last_opened_at = now() WHERE id = \(id)")
            try session.query("INSERT INTO share_visits (share_id, kind, at) VALUES (\(id), \(kind.rawValue), now())")
            var forget = PostgresQuery(unsafeSQL: IndexSQL.forgetOldShareVisits(share: "$1"))
            forget.binds.append(id)
            try session.query(forget)
        }
    }

    public func shareVisits(id: String) throws -> [ShareVisit] {
        try connections.query("SELECT kind, at FROM share_visits WHERE share_id = \(id) ORDER BY id DESC").map { row in
            ShareVisit(kind: ShareVisit.Kind(rawValue: try row["kind"].decode(String.self)) ?? .opened, at: try row["at"].decode(Date.self))
        }
    }
}
