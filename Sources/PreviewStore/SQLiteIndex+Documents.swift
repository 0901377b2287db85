import Foundation
import GRDB
import PreviewCore

/// Listing, versions, deletion and relabelling in the embedded index.
extension SQLiteIndex {
    public func list(_ query: DocumentQuery) throws -> DocumentPage {
        try list(query, search: nil)
    }

    /// A listing's page, its title search made the given way (nil: the way ``TitleSearch`` chooses).
    func list(_ query: DocumentQuery, search: TitleSearch?) throws -> DocumentPage {
        if query.shared != nil || query.sort == .mostShared { try sweepLapsedShares() }
        return try pool.read { db in
            let page = { (search: TitleSearch) in try Self.page(query, search: search, in: db) }
            if let search { return try page(search) }
            return try TitleSearch.page(for: query, page: page) { key in
                try Int.fetchOne(db, sql: Self.titleMatchesQuery, arguments: [TitleSearch.phrase(key), TitleSearch.matchLimit]) ?? 0
            }
        }
    }

    private static func page(_ query: DocumentQuery, search: TitleSearch, in db: Database) throws -> DocumentPage {
        let (sql, arguments) = listing(query, search: search)
        let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { row in
            DocumentCursor(sort: query.sort, keys: (0..<query.sort.keyCount).map { row["sort_key_\($0)"] as String })
        } : nil
        return DocumentPage(documents: try page.map { try DocumentRecord(row: $0) }, next: next)
    }

    /// How many title index rows match a phrase, counted up to a limit.
    static let titleMatchesQuery = "SELECT COUNT(*) FROM (SELECT 1 FROM document_titles WHERE document_titles MATCH ? LIMIT ?)"

    /// The statement of a listing's page (one row more than the page, to tell whether another follows).
    static func listing(_ query: DocumentQuery, search: TitleSearch = .walk) -> (sql: String, arguments: StatementArguments) {
        let (keys, descending) = Self.sortKeys(query.sort)
        var conditions = ["d.latest"]
        var arguments = StatementArguments()
        func filter(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            guard let value else { return }
            conditions.append(condition)
            arguments += [value]
        }
        filter("d.owner = ?", query.owner)
        filter("d.type = ?", query.type)
        filter("d.kind = ?", query.kind)
        filter("d.preview_status = ?", query.status)
        // Shared documents are few: read from their own index, then ordered. Unshared ones are most:
        // the order's index is walked (the unary + keeps the sort-by-shares index out of it).
        if let shared = query.shared { conditions.append(shared ? "d.live_shares > 0" : "+d.live_shares = 0") }
        if let after = query.after {
            let placeholders = keys.map(\.placeholder).joined(separator: ", ")
            conditions.append("(\(keys.map(\.expression).joined(separator: ", "))) \(descending ? "<" : ">") (\(placeholders))")
            arguments += StatementArguments(after.keys)
        }
        let order = "ORDER BY " + keys.map { $0.expression + (descending ? " DESC" : "") }.joined(separator: ", ")
        var source = "documents d"
        if query.shared == true && search != .lookUp { source += " INDEXED BY \(CurrentDocuments.sharedIndex(perOwner: query.owner != nil))" }
        let titleKey = query.titleContains.map(DocumentLabels.titleKey)
        // The candidates are read first (CROSS JOIN keeps that order of the loops): a lookup's
        // matches from the title index, then ordered; the first rows of the order, by rowid, in
        // the order's own order, as the co-routine yields them: sorting them again would read them
        // all where the page may fill from the first few hundred.
        var outerOrder = order
        switch (search, titleKey) {
        case let (.lookUp, key?):
            source = "(SELECT rowid AS hit FROM document_titles WHERE document_titles MATCH ?) AS t CROSS JOIN documents d ON d.rowid = t.hit"
            arguments = StatementArguments([TitleSearch.phrase(key)]) + arguments
        case (.walkStart, _?):
            source = """
                (SELECT d.rowid AS hit FROM \(source) WHERE \(conditions.joined(separator: " AND ")) \(order) LIMIT \(TitleSearch.walkedRows)) AS t
                CROSS JOIN documents d ON d.rowid = t.hit
                """
            conditions = []
            outerOrder = ""
        default:
            break
        }
        if let titleKey {
            conditions.append("instr(d.title_key, ?) > 0")
            arguments += [titleKey]
        }
        let selectedKeys = keys.enumerated().map { "\($1.cursor) AS sort_key_\($0)" }.joined(separator: ", ")
        let sql = """
            SELECT d.*, \(selectedKeys) FROM \(source) WHERE \(conditions.joined(separator: " AND ")) \(outerOrder) LIMIT \(query.limit + 1)
            """
        return (sql, arguments)
    }

    /// A sort key: the column rows are ordered and compared by (``CurrentDocuments`` indexes each
    /// order), its text in a cursor, and the placeholder that reads that text back.
    private struct SortKey {
        var expression: String
        var cursor: String
        var placeholder = "?"

        init(_ column: String) {
            (expression, cursor) = (column, column)
        }

        init(expression: String, cursor: String, placeholder: String) {
            (self.expression, self.cursor, self.placeholder) = (expression, cursor, placeholder)
        }
    }

    /// The keys of a sort order (ending with the id) and whether it is descending.
    private static func sortKeys(_ sort: DocumentQuery.Sort) -> (keys: [SortKey], descending: Bool) {
        let (created, title, id) = (SortKey("d.created_at"), SortKey("d.title_key"), SortKey("d.id"))
        switch sort {
        case .newest: return ([created, id], true)
        case .oldest: return ([created, id], false)
        case .title: return ([title, id], false)
        case .type: return ([SortKey("d.type"), title, id], false)
        case .mostShared:
            return ([SortKey(expression: "d.live_shares", cursor: "printf('%010d', d.live_shares)", placeholder: "CAST(? AS INTEGER)"), id], true)
        }
    }

    /// Marks the shares past their expiry lapsed (``CurrentDocuments/sweep(now:)``); writes only
    /// when one has expired since the last sweep.
    func sweepLapsedShares() throws {
        let due = try pool.read { db in try Bool.fetchOne(db, sql: Self.lapsedSharesQuery) ?? false }
        if due { try pool.write { db in try db.execute(sql: CurrentDocuments.sweep(now: Self.now)) } }
    }

    /// Whether a share has expired since the last sweep.
    static let lapsedSharesQuery = "SELECT EXISTS (SELECT 1 FROM shares WHERE \(CurrentDocuments.expired(now: now)))"

    public func versions(of id: String) throws -> [DocumentRecord] {
        try pool.read { db in try Self.versions(of: id, in: db) }
    }

    private static func versions(of id: String, in db: Database) throws -> [DocumentRecord] {
        try DocumentRecord.fetchAll(db, sql: "\(IndexSQL.versionsOfOne) WHERE v.id = ? ORDER BY d.version DESC", arguments: [id])
    }

    public func delete(documentID id: String, version: Int?) throws -> Deletion {
        try pool.write { db in
            let removed = try Self.versions(of: id, in: db).filter { version == nil || $0.version == version }
            guard !removed.isEmpty else { return Deletion(versions: [], cancelledJobs: 0) }
            let ids = String(decoding: try JSONEncoder().encode(removed.map(\.id)), as: UTF8.self)
            let cancelled = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM jobs WHERE status IN (?, ?) AND document_id IN (SELECT value FROM json_each(?))
                """, arguments: [JobRecord.Status.queued, JobRecord.Status.processing, ids]) ?? 0
            try db.execute(sql: "DELETE FROM jobs WHERE document_id IN (SELECT value FROM json_each(?))", arguments: [ids])
            if let newest = try Self.versions(of: id, in: db).first(where: { kept in !removed.contains { $0.id == kept.id } }) {
                try db.execute(sql: "UPDATE shares SET document_id = ? WHERE version IS NULL AND document_id IN (SELECT value FROM json_each(?))",
                               arguments: [newest.id, ids])
            }
            try db.execute(sql: """
                UPDATE shares SET revoked_at = ? WHERE revoked_at IS NULL AND document_id IN (SELECT value FROM json_each(?))
                """, arguments: [Date(), ids])
            try db.execute(sql: "DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))", arguments: [ids])
            return Deletion(versions: removed, cancelledJobs: cancelled)
        }
    }

    public func relabel(documentID id: String, title: String, type: String) throws -> DocumentRecord? {
        try pool.write { db in
            guard let current = try Self.versions(of: id, in: db).first else { return nil }
            if current.title == title && current.type == type { return try DocumentRecord.fetchOne(db, key: id) }
            let taken = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM documents WHERE owner = ? AND type = ? AND title = ?)",
                                          arguments: [current.owner, type, title]) ?? false
            if taken { throw LabelTaken(type: type, title: title) }
            try db.execute(sql: "UPDATE documents SET title = ?, title_key = ?, type = ? WHERE owner = ? AND type = ? AND title = ?",
                           arguments: [title, DocumentLabels.titleKey(title), type, current.owner, current.type, current.title])
            return try DocumentRecord.fetchOne(db, key: id)
        }
    }

    // MARK: Shares

    public func insertShare(_ share: ShareRecord) throws {
        try pool.write { db in try share.insert(db) }
    }

    public func share(id: String) throws -> ShareRecord? {
        try pool.read { db in try ShareRecord.fetchOne(db, key: id) }
    }

    public func share(tokenSha256: String) throws -> ShareRecord? {
        try pool.read { db in try ShareRecord.fetchOne(db, sql: "SELECT * FROM shares WHERE token_sha256 = ?", arguments: [tokenSha256]) }
    }

    public func shares(documentIDs: [String]) throws -> [ShareRecord] {
        let ids = String(decoding: try JSONEncoder().encode(documentIDs), as: UTF8.self)
        return try pool.read { db in
            try ShareRecord.fetchAll(db, sql: "SELECT * FROM shares WHERE document_id IN (SELECT value FROM json_each(?)) ORDER BY created_at DESC, id",
                                     arguments: [ids])
        }
    }

    public func revokeShare(id: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "UPDATE shares SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [Date(), id])
            return db.changesCount > 0
        }
    }

    public func recordShareVisit(id: String, _ kind: ShareVisit.Kind) throws {
        try pool.write { db in
            try db.execute(sql: kind == .downloaded ? "UPDATE shares SET download_count = download_count + 1 WHERE id = ?"
                                                    : "UPDATE shares SET opened_count = opened_count + 1, last_opened_at = ? WHERE id = ?",
                           arguments: kind == .downloaded ? [id] : [Date(), id])
            try db.execute(sql: "INSERT INTO share_visits (share_id, kind, at) VALUES (?, ?, ?)", arguments: [id, kind.rawValue, Date()])
            try db.execute(sql: IndexSQL.forgetOldShareVisits(share: "?1"), arguments: [id])
        }
    }

    public func shareVisits(id: String) throws -> [ShareVisit] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, at FROM share_visits WHERE share_id = ? ORDER BY id DESC", arguments: [id]).map { row in
                ShareVisit(kind: ShareVisit.Kind(rawValue: row["kind"]) ?? .opened, at: row["at"])
            }
        }
    }
}
