import Foundation
import PreviewCore

/// A listing's page as one keyset statement, written once for both backends: the filters, the
/// order's keys and the cursor after which the page starts, and a title search made the way
/// ``TitleSearch`` chose. Every sort and filter reads a partial index of ``CurrentDocuments`` in its
/// own order (`IndexPlanTests` holds both backends' plans to it); where the backends' planners need
/// a different shape (SQLite's title index and index hints), the statement says so by ``SQLDialect``.
public enum DocumentListing {
    /// The statement of `query`'s page: the documents and, after them, each row's sort keys as text
    /// (`sort_key_0`, …), one row more than the page to tell whether another follows.
    public static func statement(_ query: DocumentQuery, search: TitleSearch = .walk, in dialect: SQLDialect) -> PortableSQL {
        let (keys, descending) = sortKeys(query.sort, in: dialect)
        var conditions: [PortableSQL] = ["d.latest"]
        if let owner = query.owner { conditions.append("d.owner = \(owner)") }
        if let type = query.type { conditions.append("d.type = \(type)") }
        if let kind = query.kind { conditions.append("d.kind = \(kind)") }
        if let status = query.status { conditions.append("d.preview_status = \(status.rawValue)") }
        // Shared documents are few: read from their own index, then ordered. Unshared ones are most:
        // the order's index is walked (on SQLite the unary + keeps the sort-by-shares index out of it).
        if let shared = query.shared {
            conditions.append(shared ? "d.live_shares > 0" : dialect == .sqlite ? "+d.live_shares = 0" : "d.live_shares = 0")
        }
        if let after = query.after {
            let columns = keys.map(\.expression).joined(separator: ", ")
            let values = PortableSQL.joined(zip(keys, after.keys).map { key, text in key.value("\(text)") }, separator: ", ")
            conditions.append("(\(raw: columns)) \(raw: descending ? "<" : ">") (\(values))")
        }
        let order = "ORDER BY " + keys.map { $0.expression + (descending ? " DESC" : "") }.joined(separator: ", ")
        let selected = keys.enumerated().map { "\($1.cursor) AS sort_key_\($0)" }.joined(separator: ", ")
        let page = query.limit + 1
        var source = "documents d"
        if dialect == .sqlite, query.shared == true, search != .lookUp {
            source += " INDEXED BY \(CurrentDocuments.sharedIndex(perOwner: query.owner != nil))"
        }
        guard let key = query.titleContains.map(DocumentLabels.titleKey) else {
            return "SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(PortableSQL.joined(conditions, separator: " AND ")) \(raw: order) LIMIT \(page)"
        }
        let holdsTitle: PortableSQL = dialect == .sqlite ? "instr(d.title_key, \(key)) > 0" : "strpos(d.title_key, \(key)) > 0"
        switch (search, dialect) {
        case (.walkStart, .sqlite):
            // The first rows of the order, by rowid, in the order's own order as the co-routine yields
            // them (CROSS JOIN keeps that order of the loops): sorting them again would read them all
            // where the page may fill from the first few hundred. Then their matches.
            return """
                SELECT d.*, \(raw: selected) FROM (SELECT d.rowid AS hit FROM \(raw: source) WHERE \(PortableSQL.joined(conditions, separator: " AND "))
                    \(raw: order) LIMIT \(TitleSearch.walkedRows)) AS t
                CROSS JOIN documents d ON d.rowid = t.hit WHERE \(holdsTitle) LIMIT \(page)
                """
        case (.walkStart, .postgres):
            // The first rows of the order (read in its order, no sort), then their matches.
            return """
                SELECT * FROM (SELECT d.*, \(raw: selected) FROM documents d WHERE \(PortableSQL.joined(conditions, separator: " AND "))
                    \(raw: order) LIMIT \(TitleSearch.walkedRows)) AS d
                WHERE \(holdsTitle) \(raw: order) LIMIT \(page)
                """
        case (.lookUp, .sqlite):
            // The matches are read from the title index first (CROSS JOIN keeps that order), then ordered.
            return """
                SELECT d.*, \(raw: selected)
                FROM (SELECT rowid AS hit FROM document_titles WHERE document_titles MATCH \(TitleSearch.phrase(key))) AS t
                CROSS JOIN documents d ON d.rowid = t.hit
                WHERE \(PortableSQL.joined(conditions + [holdsTitle], separator: " AND ")) \(raw: order) LIMIT \(page)
                """
        case (.lookUp, .postgres):
            // The matches are read from the title index first (OFFSET 0 keeps the subquery whole), then ordered.
            return """
                SELECT d.*, \(raw: selected)
                FROM (SELECT * FROM documents WHERE latest AND title_key LIKE \(TitleSearch.likePattern(key)) OFFSET 0) AS d
                WHERE \(PortableSQL.joined(conditions + [holdsTitle], separator: " AND ")) \(raw: order) LIMIT \(page)
                """
        case (.walk, _):
            return """
                SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(PortableSQL.joined(conditions + [holdsTitle], separator: " AND "))
                \(raw: order) LIMIT \(page)
                """
        }
    }

    /// How many current documents' titles hold `key` (a folded title key), counted up to
    /// ``TitleSearch/matchLimit``: a count the title index answers.
    public static func titleMatches(_ key: String, in dialect: SQLDialect) -> PortableSQL {
        switch dialect {
        case .sqlite:
            "SELECT COUNT(*) AS n FROM (SELECT 1 FROM document_titles WHERE document_titles MATCH \(TitleSearch.phrase(key)) LIMIT \(TitleSearch.matchLimit))"
        case .postgres:
            """
            SELECT COUNT(*) AS n FROM (SELECT 1 FROM documents WHERE latest AND title_key LIKE \(TitleSearch.likePattern(key))
                                       LIMIT \(TitleSearch.matchLimit)) AS matches
            """
        }
    }

    /// A page from the statement's rows: each document with its sort keys.
    public static func page(_ rows: [(document: DocumentRecord, sortKeys: [String])], of query: DocumentQuery) -> DocumentPage {
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { DocumentCursor(sort: query.sort, keys: $0.sortKeys) } : nil
        return DocumentPage(documents: page.map(\.document), next: next)
    }

    /// A sort key: the expression rows are ordered and compared by (``CurrentDocuments`` indexes each
    /// order), its text in a cursor, and what turns a cursor's text (bound) back into a comparable value.
    private struct SortKey {
        var expression: String
        var cursor: String
        var value: (PortableSQL) -> PortableSQL = { $0 }
    }

    /// The keys of a sort order (ending with the id) and whether it is descending. Rows are ordered
    /// by the column itself. SQLite keeps times as text, which a cursor holds as it is; PostgreSQL's
    /// are whole microseconds in a cursor, so it compares exactly what the rows hold, and its text
    /// orders by bytes (`COLLATE "C"`), as SQLite's does, so the same titles page the same way.
    private static func sortKeys(_ sort: DocumentQuery.Sort, in dialect: SQLDialect) -> (keys: [SortKey], descending: Bool) {
        let id = SortKey(expression: "d.id", cursor: text("d.id", dialect))
        let created, title, type, shares: SortKey
        switch dialect {
        case .sqlite:
            created = SortKey(expression: "d.created_at", cursor: "d.created_at")
            title = SortKey(expression: "d.title_key", cursor: "d.title_key")
            type = SortKey(expression: "d.type", cursor: "d.type")
            shares = SortKey(expression: "d.live_shares", cursor: "printf('%010d', d.live_shares)") { "CAST(\($0) AS INTEGER)" }
        case .postgres:
            created = SortKey(expression: "d.created_at", cursor: "((extract(epoch FROM d.created_at) * 1000000)::bigint)::text") { micros in
                "('epoch'::timestamptz + \(micros)::bigint * interval '1 microsecond')"
            }
            title = SortKey(expression: "d.title_key COLLATE \"C\"", cursor: "d.title_key::text") { "\($0)::text" }
            type = SortKey(expression: "d.type COLLATE \"C\"", cursor: "d.type::text") { "\($0)::text" }
            shares = SortKey(expression: "d.live_shares", cursor: "lpad(d.live_shares::text, 10, '0')") { "\($0)::bigint" }
        }
        switch sort {
        case .newest: return ([created, id], true)
        case .oldest: return ([created, id], false)
        case .title: return ([title, id], false)
        case .type: return ([type, title, id], false)
        case .mostShared: return ([shares, id], true)
        }
    }

    /// A text column as a cursor holds it.
    private static func text(_ column: String, _ dialect: SQLDialect) -> String {
        dialect == .sqlite ? column : "\(column)::text"
    }
}
