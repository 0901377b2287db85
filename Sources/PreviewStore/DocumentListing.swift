import Foundation
import PreviewCore
import PreviewDomain

/// A listing's page as one keyset statement, written once for both backends: the filters, the
/// order's keys and the cursor after which the page starts, and a text search made the way
/// ``TextSearch`` chose. Every sort and filter reads a partial index of ``CurrentDocuments`` in its
/// own order (`IndexPlanTests` holds both backends' plans to it); where the backends' planners need
/// a different shape (SQLite's search index and index hints), the statement says so by ``SQLDialect``.
package enum DocumentListing {
    /// The statement of `query`'s page: the documents and, after them, each row's sort keys as text
    /// (`sort_key_0`, …), one row more than the page to tell whether another follows.
    /// A PostgreSQL reading in order takes at most `steps` steps (``TextSearch/leapSteps``).
    package static func statement(
        _ query: DocumentQuery, search: TextSearch = .walk, steps: Int = TextSearch.leapSteps,
        in dialect: SQLDialect
    ) -> PortableSQL {
        let (keys, descending) = sortKeys(query.sort, in: dialect)
        let conditions = conditions(query, keys: keys, descending: descending, in: dialect)
        let order = "ORDER BY " + keys.map { $0.expression + (descending ? " DESC" : "") }.joined(separator: ", ")
        let selected = keys.enumerated().map { "\($1.cursor) AS sort_key_\($0)" }.joined(separator: ", ")
        let page = query.limit + 1
        let source = source(query, in: dialect)
        guard let key = query.containing.map(DocumentLabels.titleKey) else {
            let matching = PortableSQL.joined(conditions, separator: " AND ")
            return "SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(matching) \(raw: order) LIMIT \(page)"
        }
        let holdsText = dialect.holds("d.search_key", key)
        switch (search, dialect) {
        case (.walkStart, .sqlite):
            // The first rows of the order, by rowid, in the order's own order as the co-routine yields
            // them (CROSS JOIN keeps that order of the loops): sorting them again would read them all
            // where the page may fill from the first few hundred. Then their matches.
            return """
                SELECT d.*, \(raw: selected) FROM (SELECT d.rowid AS hit FROM \(raw: source) WHERE \
                \(PortableSQL.joined(conditions, separator: " AND "))
                    \(raw: order) LIMIT \(TextSearch.walkedRows)) AS t
                CROSS JOIN documents d ON d.rowid = t.hit WHERE \(holdsText) LIMIT \(page)
                """
        case (.walkStart, .postgres):
            // The first rows of the order (read in its order, no sort), then their matches.
            return """
                SELECT * FROM (SELECT d.*, \(raw: selected) FROM documents d WHERE \(PortableSQL.joined(conditions, separator: " AND "))
                    \(raw: order) LIMIT \(TextSearch.walkedRows)) AS d
                WHERE \(holdsText) \(raw: order) LIMIT \(page)
                """
        case (.readInOrder, .sqlite):
            return readInOrder(query, key: key, conditions: conditions + [holdsText], descending: descending, selected: selected, order: order)
        case (.lookUp, .sqlite):
            // The matches are read from the search index first (CROSS JOIN keeps that order), then ordered.
            return """
                SELECT d.*, \(raw: selected)
                FROM (SELECT rowid AS hit FROM document_search WHERE document_search MATCH \(TextSearch.labelQuery(key, owner: query.owner))) AS t
                CROSS JOIN documents d ON d.search_order = t.hit
                WHERE \(PortableSQL.joined(conditions + [holdsText], separator: " AND ")) \(raw: order) LIMIT \(page)
                """
        case (.readInOrder, .postgres):
            return leapfrog(
                query, key: key, conditions: conditions + [holdsText], keys: keys, descending: descending, selected: selected,
                order: order, steps: steps)
        case (.lookUp, .postgres):
            // The matches are read from the search index first (OFFSET 0 keeps the subquery whole), then
            // ordered: PostgreSQL's search index holds no order.
            return """
                SELECT d.*, \(raw: selected)
                FROM (SELECT * FROM documents WHERE \(matching(key, owner: query.owner)) OFFSET 0) AS d
                WHERE \(PortableSQL.joined(conditions + [holdsText], separator: " AND ")) \(raw: order) LIMIT \(page)
                """
        case (.walk, _):
            return """
                SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(PortableSQL.joined(conditions + [holdsText], separator: " AND "))
                \(raw: order) LIMIT \(page)
                """
        }
    }

    /// A page of a search newest or oldest first on SQLite, from the search index in the order's own
    /// order (its rowids are `search_order`: a version's second of creation, shifted by
    /// ``TextSearch/orderBits``, then a count within it), one more match than the page, then
    /// ordered. Within a second the rowids are in no order: when the page's last match and the one
    /// after it share a second (`edge`, else it has no row and nothing more is read), that second's
    /// other matches are read too, from its rowids alone. A cursor starts the reading at its own
    /// second; one whose time is no time (a stranger's) bounds nothing, and its keys alone say
    /// which rows come after it.
    private static func readInOrder(
        _ query: DocumentQuery, key: String, conditions: [PortableSQL], descending: Bool,
        selected: String, order: String
    ) -> PortableSQL {
        let bits = String(TextSearch.orderBits)
        var range: PortableSQL = ""
        if let created = query.after?.keys.first {
            let second = TextSearch.creationSecond("\(created)")
            range =
                descending
                ? " AND s.rowid < coalesce((\(second) + 1) << \(raw: bits), 1 << 62)"
                : " AND s.rowid >= coalesce(\(second) << \(raw: bits), -(1 << 62))"
        }
        let holding = PortableSQL.joined(conditions, separator: " AND ")
        let page = query.limit + 1
        func matches(_ range: PortableSQL, after outer: String = "") -> PortableSQL {
            """
            FROM \(raw: outer)document_search s CROSS JOIN documents d ON d.search_order = s.rowid
            WHERE document_search MATCH \(TextSearch.labelQuery(key, owner: query.owner))\(range) AND \(holding)
            """
        }
        let tied: PortableSQL = " AND s.rowid >= edge.second << \(raw: bits) AND s.rowid < (edge.second + 1) << \(raw: bits)"
        let (reading, last) = descending ? ("DESC", "ASC") : ("ASC", "DESC")
        return """
            WITH first AS (SELECT s.rowid AS hit \(matches(range)) ORDER BY s.rowid \(raw: reading) LIMIT \(page)),
            edge AS (SELECT min(second) AS second FROM (SELECT hit >> \(raw: bits) AS second FROM first ORDER BY hit \(raw: last) LIMIT 2)
                     HAVING (SELECT count(*) FROM first) = \(page) AND min(second) = max(second))
            SELECT * FROM (
                SELECT d.*, \(raw: selected) FROM first CROSS JOIN documents d ON d.search_order = first.hit
                WHERE first.hit >> \(raw: bits) IS NOT (SELECT second FROM edge)
                UNION ALL
                SELECT d.*, \(raw: selected) \(matches(tied, after: "edge CROSS JOIN "))
            ) AS d \(raw: order) LIMIT \(page)
            """
    }

    /// A page of a search newest or oldest first on PostgreSQL, from the search postings (a row per
    /// trigram, or owner, of each latest version, keyed by `(gram, created_at, id)`: the order's
    /// own keys), by a leapfrog walk: each step seeks every gram's first posting at or after the
    /// walk's place, and moves to the furthest; where all agree, that version holds every gram and
    /// its row, read by its id alone (`OFFSET 0` keeps other indexes out of it), is tested. Rows
    /// come out in the walk's order, which stops at a full page (PostgreSQL reads a recursive query
    /// only as far as its reader asks), and are ordered again once they are a page. After `steps`
    /// steps the walk stops, with a row whose `reading_cut` says so (``TextSearch/ReadingCut``). A
    /// cursor starts the walk after its own place; one whose time is no time starts it nowhere, as
    /// the order's own comparison finds no row after it.
    private static func leapfrog(
        _ query: DocumentQuery, key: String, conditions: [PortableSQL], keys: [SortKey], descending: Bool,
        selected: String, order: String, steps: Int
    ) -> PortableSQL {
        var grams: PortableSQL = "ARRAY[\(raw: TextSearch.trigrams(key).map(String.init).joined(separator: ", "))]::bigint[]"
        if let owner = query.owner { grams = "\(grams) || search_owner_gram(\(owner))" }
        var start: PortableSQL = descending ? "'infinity'::timestamptz, ''::text, false" : "'-infinity'::timestamptz, ''::text, false"
        if let after = query.after, after.keys.count == 2 {
            start = "\(keys[0].value("\(after.keys[0])")), \(after.keys[1])::text, true"
        }
        let (at, seek, furthest) = descending ? ("<=", "DESC", "ASC") : (">=", "ASC", "DESC")
        return """
            WITH RECURSIVE walk (created_at, id, hit, steps) AS (
                SELECT \(start), 0
                UNION ALL
                SELECT step.created_at, step.id, step.hit, w.steps + 1 FROM walk w CROSS JOIN LATERAL (
                    SELECT s.created_at, s.id, count(*) OVER (PARTITION BY s.created_at, s.id) = cardinality(g.grams) AS hit,
                           count(*) OVER () = cardinality(g.grams) AS whole
                    FROM (SELECT \(grams) AS grams) AS g CROSS JOIN unnest(g.grams) AS each (gram) CROSS JOIN LATERAL (
                        SELECT p.created_at, p.id FROM search_postings p
                        WHERE p.gram = each.gram AND (p.created_at, p.id) \(raw: at) (w.created_at, w.id)
                          AND NOT (w.hit AND p.created_at = w.created_at AND p.id = w.id)
                        ORDER BY p.created_at \(raw: seek), p.id \(raw: seek) LIMIT 1) AS s
                    ORDER BY s.created_at \(raw: furthest), s.id \(raw: furthest) LIMIT 1) AS step
                WHERE step.whole AND w.steps < \(raw: String(steps)))
            SELECT * FROM (
                SELECT d.*, \(raw: selected), walk.steps = \(raw: String(steps)) AS reading_cut
                FROM walk LEFT JOIN LATERAL (SELECT * FROM (SELECT * FROM documents WHERE walk.hit AND id = walk.id OFFSET 0) AS d
                                             WHERE \(PortableSQL.joined(conditions, separator: " AND "))) AS d ON true
                WHERE d.id IS NOT NULL OR walk.steps = \(raw: String(steps))
                LIMIT \(query.limit + 1)) AS d
            \(raw: order)
            """
    }

    /// How many rows a walk of `query`'s order reads before its text is tested (its other filters
    /// and its cursor), counted in the order's index up to `limit + 1`.
    package static func candidates(_ query: DocumentQuery, upTo limit: Int, in dialect: SQLDialect) -> PortableSQL {
        let (keys, descending) = sortKeys(query.sort, in: dialect)
        let conditions = PortableSQL.joined(conditions(query, keys: keys, descending: descending, in: dialect), separator: " AND ")
        return """
            SELECT COUNT(*) AS n FROM (SELECT 1 FROM \(raw: source(query, in: dialect)) WHERE \(conditions)
                                       LIMIT \(limit + 1)) AS candidates
            """
    }

    /// What the rows of `query` hold besides its text: the current versions, its filters, and
    /// (for a next page) coming after its cursor in the order of `keys`.
    private static func conditions(_ query: DocumentQuery, keys: [SortKey], descending: Bool, in dialect: SQLDialect) -> [PortableSQL] {
        var conditions: [PortableSQL] = ["d.latest"]
        if let owner = query.owner { conditions.append("d.owner = \(owner)") }
        if let type = query.type { conditions.append("d.type = \(type)") }
        if let kind = query.kind { conditions.append("d.kind = \(kind)") }
        if let school = query.school { conditions.append("d.school = \(school)") }
        if let status = query.status { conditions.append("d.preview_status = \(status.rawValue)") }
        // Shared documents are few: read from their own index, then ordered. Unshared ones are most:
        // the order's index is walked (on SQLite the unary + keeps the sort-by-shares index out of it).
        if let shared = query.shared {
            conditions.append(shared ? "d.live_shares > 0" : dialect == .sqlite ? "+d.live_shares = 0" : "d.live_shares = 0")
        }
        if let after = query.after {
            var columns = keys.map(\.expression)
            var values = zip(keys, after.keys).map { key, text in key.value("\(text)") }
            // PostgreSQL estimates a row comparison by its first column alone: after a cursor whose
            // first key most rows share (no shares), it would expect no row and may read the
            // store-wide index, filtering by owner. With the owner first, only the owner's index
            // holds the comparison.
            if dialect == .postgres, let owner = query.owner {
                columns.insert("d.owner", at: 0)
                values.insert("\(owner)", at: 0)
            }
            conditions.append(
                "(\(raw: columns.joined(separator: ", "))) \(raw: descending ? "<" : ">") (\(PortableSQL.joined(values, separator: ", ")))")
        }
        return conditions
    }

    /// The documents' table, on SQLite with the index of shared documents named where it must be read
    /// (the planner would walk the order's instead).
    private static func source(_ query: DocumentQuery, in dialect: SQLDialect) -> String {
        guard dialect == .sqlite, query.shared == true else { return "documents d" }
        return "documents d INDEXED BY \(CurrentDocuments.sharedIndex(perOwner: query.owner != nil))"
    }

    /// How many documents' search keys hold `key` (folded as a title is), of `owner` if one is
    /// given, counted up to `limit`: a count the search index answers (SQLite's counts every
    /// version, an upper bound of the current ones).
    package static func textMatches(_ key: String, owner: String?, upTo limit: Int, in dialect: SQLDialect) -> PortableSQL {
        switch dialect {
        case .sqlite:
            """
            SELECT COUNT(*) AS n FROM (SELECT 1 FROM document_search
            WHERE document_search MATCH \(TextSearch.labelQuery(key, owner: owner)) LIMIT \(limit))
            """
        case .postgres:
            """
            SELECT COUNT(*) AS n FROM (SELECT 1 FROM documents WHERE \(matching(key, owner: owner)) LIMIT \(limit)) AS matches
            """
        }
    }

    /// PostgreSQL's current versions whose search keys hold `key`, of `owner` if one is given: what
    /// its trigram index (`pg_trgm`, of the latest versions) finds.
    private static func matching(_ key: String, owner: String?) -> PortableSQL {
        let holding: PortableSQL = "latest AND search_key LIKE \(TextSearch.likePattern(key))"
        guard let owner else { return holding }
        return "\(holding) AND owner = \(owner)"
    }

    /// A page from the statement's rows: each document with its sort keys.
    package static func page(_ rows: [(document: Document, sortKeys: [String])], of query: DocumentQuery) -> DocumentPage {
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
            // A cursor's text is its sender's: one that is no whole number is NULL, which no row follows.
            let whole = { (text: PortableSQL) -> PortableSQL in "(CASE WHEN \(text)::text ~ '^-?[0-9]{1,18}$' THEN \(text)::bigint END)" }
            created = SortKey(expression: "d.created_at", cursor: "((extract(epoch FROM d.created_at) * 1000000)::bigint)::text") { micros in
                "('epoch'::timestamptz + \(whole(micros)) * interval '1 microsecond')"
            }
            title = SortKey(expression: "d.title_key COLLATE \"C\"", cursor: "d.title_key::text") { "\($0)::text" }
            type = SortKey(expression: "d.type COLLATE \"C\"", cursor: "d.type::text") { "\($0)::text" }
            shares = SortKey(expression: "d.live_shares", cursor: "lpad(d.live_shares::text, 10, '0')") { whole($0) }
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
