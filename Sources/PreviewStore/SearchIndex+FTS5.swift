import Foundation

/// SQLite's search indexes: FTS5 `trigram` tables, `document_search` over every version's labels
/// (its rowids are the versions' `search_order`, and it holds each owner as one token,
/// ``TextSearch/ownerToken(_:)``) and `page_search` over the pages' texts. Each statement reads
/// the index first and keeps that order of the loops with `CROSS JOIN`.
struct FTS5Search: SearchIndex {
    func firstRowsHolding(_ listing: ListingParts) -> PortableSQL {
        // The first rows of the order, by rowid, in the order's own order as the co-routine yields
        // them (CROSS JOIN keeps that order of the loops): sorting them again would read them all
        // where the page may fill from the first few hundred. Then their matches.
        """
        SELECT d.*, \(raw: listing.selected) FROM (SELECT d.rowid AS hit FROM \(raw: listing.source) WHERE \
        \(PortableSQL.joined(listing.conditions, separator: " AND "))
            \(raw: listing.order) LIMIT \(TextSearch.walkedRows)) AS t
        CROSS JOIN documents d ON d.rowid = t.hit WHERE \(listing.holdsText) LIMIT \(listing.page)
        """
    }

    func matchesThenOrdered(_ listing: ListingParts) -> PortableSQL {
        // The matches are read from the search index first (CROSS JOIN keeps that order), then ordered.
        """
        SELECT d.*, \(raw: listing.selected)
        FROM (SELECT rowid AS hit FROM document_search WHERE document_search MATCH \(labelQuery(listing))) AS t
        CROSS JOIN documents d ON d.search_order = t.hit
        WHERE \(listing.holding) \(raw: listing.order) LIMIT \(listing.page)
        """
    }

    /// A page of a search newest or oldest first, from the search index in the order's own
    /// order (its rowids are `search_order`: a version's second of creation, shifted by
    /// ``TextSearch/orderBits``, then a count within it), one more match than the page, then
    /// ordered. Within a second the rowids are in no order: when the page's last match and the one
    /// after it share a second (`edge`, else it has no row and nothing more is read), that second's
    /// other matches are read too, from its rowids alone. A cursor starts the reading at its own
    /// second; one whose time is no time (a stranger's) bounds nothing, and its keys alone say
    /// which rows come after it.
    func matchesInOrder(_ listing: ListingParts) -> PortableSQL {
        let bits = String(TextSearch.orderBits)
        var range: PortableSQL = ""
        if let created = listing.query.after?.keys.first {
            let second = TextSearch.creationSecond("\(created)")
            range =
                listing.descending
                ? " AND s.rowid < coalesce((\(second) + 1) << \(raw: bits), 1 << 62)"
                : " AND s.rowid >= coalesce(\(second) << \(raw: bits), -(1 << 62))"
        }
        func matches(_ range: PortableSQL, after outer: String = "") -> PortableSQL {
            """
            FROM \(raw: outer)document_search s CROSS JOIN documents d ON d.search_order = s.rowid
            WHERE document_search MATCH \(labelQuery(listing))\(range) AND \(listing.holding)
            """
        }
        let tied: PortableSQL = " AND s.rowid >= edge.second << \(raw: bits) AND s.rowid < (edge.second + 1) << \(raw: bits)"
        let (reading, last) = listing.descending ? ("DESC", "ASC") : ("ASC", "DESC")
        let (selected, page) = (listing.selected, listing.page)
        return """
            WITH first AS (SELECT s.rowid AS hit \(matches(range)) ORDER BY s.rowid \(raw: reading) LIMIT \(page)),
            edge AS (SELECT min(second) AS second FROM (SELECT hit >> \(raw: bits) AS second FROM first ORDER BY hit \(raw: last) LIMIT 2)
                     HAVING (SELECT count(*) FROM first) = \(page) AND min(second) = max(second))
            SELECT * FROM (
                SELECT d.*, \(raw: selected) FROM first CROSS JOIN documents d ON d.search_order = first.hit
                WHERE first.hit >> \(raw: bits) IS NOT (SELECT second FROM edge)
                UNION ALL
                SELECT d.*, \(raw: selected) \(matches(tied, after: "edge CROSS JOIN "))
            ) AS d \(raw: listing.order) LIMIT \(page)
            """
    }

    /// Counts every version's row, an upper bound of the current ones.
    func labelMatches(_ key: String, owner: String?, upTo limit: Int) -> PortableSQL {
        """
        SELECT COUNT(*) AS n FROM (SELECT 1 FROM document_search
        WHERE document_search MATCH \(TextSearch.labelQuery(key, owner: owner)) LIMIT \(limit))
        """
    }

    func labels(_ query: PageSearch.Query, passing conditions: PortableSQL, limit: Int) -> PortableSQL {
        """
        SELECT d.id AS id FROM document_search s CROSS JOIN documents d ON d.search_order = s.rowid
        WHERE document_search MATCH \(TextSearch.labelQuery(query.labelKey, owner: query.owner)) AND \(conditions) LIMIT \(limit)
        """
    }

    func pages(_ query: PageSearch.Query, passing conditions: PortableSQL, occurrences: PortableSQL, limit: Int) -> PortableSQL {
        // Each page's derivative and documents after the index (CROSS JOIN keeps that order).
        """
        SELECT d.id AS id, p.derivative AS derivative, p.page AS page, \(occurrences) AS hits
        FROM page_search s CROSS JOIN page_texts p ON p.id = s.rowid CROSS JOIN derivatives x ON x.key = p.derivative
        CROSS JOIN documents d ON d.sha256 = x.source_sha256
        WHERE page_search MATCH \(TextSearch.phrase(query.needle)) AND \(conditions) LIMIT \(limit)
        """
    }

    /// The FTS5 query of a listing's text, of its owner if it has one.
    private func labelQuery(_ listing: ListingParts) -> String {
        TextSearch.labelQuery(listing.key, owner: listing.query.owner)
    }
}
