import Foundation
import PreviewCore
import PreviewDomain

/// A listing's page as one keyset statement, written once for both backends: the filters, the
/// order's keys and the cursor after which the page starts, and a text search made the way
/// ``TextSearch`` chose. Every sort and filter reads a partial index of ``CurrentDocuments`` in its
/// own order (`IndexPlanTests` holds both backends' plans to it). Where the backends differ, the
/// statement asks ``SQLDialect``: its planner hints and order keys, and its search index
/// (``SearchIndex``), which reads a text search's matches.
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
        let source = source(query, in: dialect)
        guard let key = query.containing.map(DocumentLabels.titleKey) else {
            let matching = PortableSQL.joined(conditions, separator: " AND ")
            return "SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(matching) \(raw: order) LIMIT \(query.limit + 1)"
        }
        let listing = ListingParts(
            query: query, key: key, conditions: conditions, holdsText: dialect.holds("d.search_key", key), keys: keys,
            descending: descending, selected: selected, order: order, source: source, steps: steps)
        switch search {
        case .walk:
            return "SELECT d.*, \(raw: selected) FROM \(raw: source) WHERE \(listing.holding) \(raw: order) LIMIT \(listing.page)"
        case .walkStart: return dialect.searchIndex.firstRowsHolding(listing)
        case .readInOrder: return dialect.searchIndex.matchesInOrder(listing)
        case .lookUp: return dialect.searchIndex.matchesThenOrdered(listing)
        }
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
    private static func conditions(_ query: DocumentQuery, keys: [OrderKey], descending: Bool, in dialect: SQLDialect) -> [PortableSQL] {
        var conditions: [PortableSQL] = ["d.latest"]
        if let owner = query.owner { conditions.append("d.owner = \(owner)") }
        if let type = query.type { conditions.append("d.type = \(type)") }
        if let kind = query.kind { conditions.append("d.kind = \(kind)") }
        if let school = query.school { conditions.append("d.school = \(school)") }
        if let status = query.status { conditions.append("d.preview_status = \(status.rawValue)") }
        // Shared documents are few: read from their own index, then ordered. Unshared ones are most:
        // the order's index is walked, the sort-by-shares index kept out of it.
        if let shared = query.shared {
            conditions.append(shared ? "d.live_shares > 0" : "\(raw: dialect.withoutIndex("d.live_shares")) = 0")
        }
        if let after = query.after {
            var columns = keys.map(\.expression)
            var values = zip(keys, after.keys).map { key, text in key.value("\(text)") }
            if dialect.estimatesRowComparisonsByFirstColumn, let owner = query.owner {
                columns.insert("d.owner", at: 0)
                values.insert("\(owner)", at: 0)
            }
            conditions.append(
                "(\(raw: columns.joined(separator: ", "))) \(raw: descending ? "<" : ">") (\(PortableSQL.joined(values, separator: ", ")))")
        }
        return conditions
    }

    /// The documents' table, read through the index of shared documents where it must be (a
    /// planner would walk the order's instead).
    private static func source(_ query: DocumentQuery, in dialect: SQLDialect) -> String {
        guard query.shared == true else { return "documents d" }
        return dialect.reading("documents d", through: CurrentDocuments.sharedIndex(perOwner: query.owner != nil))
    }

    /// How many documents' search keys hold `key` (folded as a title is), of `owner` if one is
    /// given, counted up to `limit`: a count the search index answers.
    package static func textMatches(_ key: String, owner: String?, upTo limit: Int, in dialect: SQLDialect) -> PortableSQL {
        dialect.searchIndex.labelMatches(key, owner: owner, upTo: limit)
    }

    /// A page from the statement's rows: each document with its sort keys.
    package static func page(_ rows: [(document: Document, sortKeys: [String])], of query: DocumentQuery) -> DocumentPage {
        let page = rows.prefix(query.limit)
        let next = rows.count > query.limit ? page.last.map { DocumentCursor(sort: query.sort, keys: $0.sortKeys) } : nil
        return DocumentPage(documents: page.map(\.document), next: next)
    }

    /// The keys of a sort order (ending with the id) and whether it is descending, as the dialect
    /// orders and carries each kind of column.
    private static func sortKeys(_ sort: DocumentQuery.Sort, in dialect: SQLDialect) -> (keys: [OrderKey], descending: Bool) {
        let id = OrderKey(expression: "d.id", cursor: dialect.cursorText("d.id"))
        let (created, title, type) = (dialect.timeKey("d.created_at"), dialect.textKey("d.title_key"), dialect.textKey("d.type"))
        switch sort {
        case .newest: return ([created, id], true)
        case .oldest: return ([created, id], false)
        case .title: return ([title, id], false)
        case .type: return ([type, title, id], false)
        case .mostShared: return ([dialect.countKey("d.live_shares"), id], true)
        }
    }
}

/// Listing, written once for both backends over the portable layer: the same statements, the
/// same answers.
extension DocumentIndex {
    /// One page of the latest versions that match `query`.
    public func list(_ query: DocumentQuery) async throws -> DocumentPage {
        try await list(query, search: nil)
    }

    /// A listing's page, its title search made the given way (nil: the way ``TextSearch`` chooses),
    /// a PostgreSQL reading in order in at most `steps` steps. Each step is a read of its own: a
    /// page's rows come from one statement, and the counts that choose the way only steer.
    package func list(_ query: DocumentQuery, search: TextSearch?, steps: Int = TextSearch.leapSteps) async throws -> DocumentPage {
        if query.shared != nil || query.sort == .mostShared { try await sweepLapsedShares() }
        let dialect = self.dialect
        let page = { (search: TextSearch) in
            let rows = try await readPlan { .rows(DocumentListing.statement(query, search: search, steps: steps, in: dialect)) }
            if search == .readInOrder, rows.contains(where: { $0.bool("reading_cut") == true }) { throw TextSearch.ReadingCut() }
            return DocumentListing.page(
                try rows.map { row in
                    let keys = (0..<query.sort.keyCount).compactMap { row.text("sort_key_\($0)") }
                    guard keys.count == query.sort.keyCount else { throw UnreadableRow(table: "documents") }
                    return (try Document(row: row), keys)
                }, of: query)
        }
        if let search { return try await page(search) }
        func count(_ statement: PortableSQL) async throws -> Int {
            try await readPlan { .rows(statement) }.first?.integer("n").map(Int.init) ?? 0
        }
        return try await TextSearch.page(
            for: query, page: page,
            matches: { key, limit in try await count(DocumentListing.textMatches(key, owner: query.owner, upTo: limit, in: dialect)) },
            candidates: { limit in try await count(DocumentListing.candidates(query, upTo: limit, in: dialect)) })
    }
}
