import Foundation

/// PostgreSQL's search indexes: `pg_trgm` indexes of the latest versions' search keys and of the
/// pages' search texts, and the search postings (`search_postings`: a row per trigram, or owner,
/// of each latest version, keyed by `(gram, created_at, id)`, the creation order's own keys).
struct TrigramSearch: SearchIndex {
    func firstRowsHolding(_ listing: ListingParts) -> PortableSQL {
        // The first rows of the order (read in its order, no sort), then their matches.
        """
        SELECT * FROM (SELECT d.*, \(raw: listing.selected) FROM documents d WHERE \
        \(PortableSQL.joined(listing.conditions, separator: " AND "))
            \(raw: listing.order) LIMIT \(TextSearch.walkedRows)) AS d
        WHERE \(listing.holdsText) \(raw: listing.order) LIMIT \(listing.page)
        """
    }

    func matchesThenOrdered(_ listing: ListingParts) -> PortableSQL {
        // The matches are read from the search index first (OFFSET 0 keeps the subquery whole), then
        // ordered: PostgreSQL's search index holds no order.
        """
        SELECT d.*, \(raw: listing.selected)
        FROM (SELECT * FROM documents WHERE \(matching(listing.key, owner: listing.query.owner)) OFFSET 0) AS d
        WHERE \(listing.holding) \(raw: listing.order) LIMIT \(listing.page)
        """
    }

    /// A page of a search newest or oldest first, from the search postings by a leapfrog walk: each
    /// step seeks every gram's first posting at or after the walk's place, and moves to the
    /// furthest; where all agree, that version holds every gram and its row, read by its id alone
    /// (`OFFSET 0` keeps other indexes out of it), is tested. Rows come out in the walk's order,
    /// which stops at a full page (PostgreSQL reads a recursive query only as far as its reader
    /// asks), and are ordered again once they are a page. After the listing's `steps` steps the
    /// walk stops, with a row whose `reading_cut` says so (``TextSearch/ReadingCut``). A cursor
    /// starts the walk after its own place; one whose time is no time starts it nowhere, as the
    /// order's own comparison finds no row after it.
    func matchesInOrder(_ listing: ListingParts) -> PortableSQL {
        let query = listing.query
        var grams: PortableSQL = "ARRAY[\(raw: TextSearch.trigrams(listing.key).map(String.init).joined(separator: ", "))]::bigint[]"
        if let owner = query.owner { grams = "\(grams) || search_owner_gram(\(owner))" }
        var start: PortableSQL =
            listing.descending ? "'infinity'::timestamptz, ''::text, false" : "'-infinity'::timestamptz, ''::text, false"
        if let after = query.after, after.keys.count == 2 {
            start = "\(listing.keys[0].value("\(after.keys[0])")), \(after.keys[1])::text, true"
        }
        let (at, seek, furthest) = listing.descending ? ("<=", "DESC", "ASC") : (">=", "ASC", "DESC")
        let steps = String(listing.steps)
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
                WHERE step.whole AND w.steps < \(raw: steps))
            SELECT * FROM (
                SELECT d.*, \(raw: listing.selected), walk.steps = \(raw: steps) AS reading_cut
                FROM walk LEFT JOIN LATERAL (SELECT * FROM (SELECT * FROM documents WHERE walk.hit AND id = walk.id OFFSET 0) AS d
                                             WHERE \(listing.holding)) AS d ON true
                WHERE d.id IS NOT NULL OR walk.steps = \(raw: steps)
                LIMIT \(listing.page)) AS d
            \(raw: listing.order)
            """
    }

    func labelMatches(_ key: String, owner: String?, upTo limit: Int) -> PortableSQL {
        "SELECT COUNT(*) AS n FROM (SELECT 1 FROM documents WHERE \(matching(key, owner: owner)) LIMIT \(limit)) AS matches"
    }

    func labels(_ query: PageSearch.Query, passing conditions: PortableSQL, limit: Int) -> PortableSQL {
        """
        SELECT d.id AS id FROM documents d WHERE d.search_key LIKE \(TextSearch.likePattern(query.labelKey)) AND \(conditions)
        LIMIT \(limit)
        """
    }

    /// A text of several words is looked for in the pages holding its longest word, at most
    /// ``PageSearch/phraseCandidates``: pg_trgm's trigrams are each word's own, so every page
    /// holding all the words anywhere would be checked (tens of thousands for common ones). The
    /// text is then tested in each, and a first row says how many were read (more than the bound:
    /// not complete).
    func pages(_ query: PageSearch.Query, passing conditions: PortableSQL, occurrences: PortableSQL, limit: Int) -> PortableSQL {
        guard let word = PageSearch.longestWord(of: query.needle) else {
            return """
                SELECT d.id AS id, p.derivative AS derivative, p.page AS page, \(occurrences) AS hits
                FROM page_texts p JOIN derivatives x ON x.key = p.derivative JOIN documents d ON d.sha256 = x.source_sha256
                WHERE p.search_text LIKE \(TextSearch.likePattern(query.needle)) AND \(conditions) LIMIT \(limit)
                """
        }
        return """
            WITH c AS (SELECT id, derivative, page, search_text FROM page_texts WHERE search_text LIKE \(TextSearch.likePattern(word))
                       LIMIT \(PageSearch.phraseCandidates + 1))
            SELECT NULL AS id, NULL AS derivative, NULL AS page, NULL AS hits, (SELECT COUNT(*) FROM c) AS candidates
            UNION ALL (SELECT d.id, p.derivative, p.page, \(occurrences), NULL
                       FROM c p JOIN derivatives x ON x.key = p.derivative JOIN documents d ON d.sha256 = x.source_sha256
                       WHERE \(SQLDialect.postgres.holds("p.search_text", query.needle)) AND \(conditions) LIMIT \(limit))
            """
    }

    /// The current versions whose search keys hold `key`, of `owner` if one is given: what the
    /// trigram index of the latest versions finds.
    private func matching(_ key: String, owner: String?) -> PortableSQL {
        let holding: PortableSQL = "latest AND search_key LIKE \(TextSearch.likePattern(key))"
        guard let owner else { return holding }
        return "\(holding) AND owner = \(owner)"
    }
}
