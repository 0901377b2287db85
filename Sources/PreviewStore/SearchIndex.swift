import Foundation

/// A backend's search indexes: the reads of a text search, where the two backends' statements
/// differ most (``SQLDialect/searchIndex``).
///
/// SQLite keeps FTS5 `trigram` tables (``FTS5Search``), PostgreSQL `pg_trgm` indexes and trigram
/// postings (``TrigramSearch``). ``DocumentListing`` and ``PageSearch`` build everything else of
/// a statement once (filters, order, cursor, page) and ask this for the part that reads an index.
package protocol SearchIndex: Sendable {
    /// A listing's page from the first ``TextSearch/walkedRows`` rows of its order, those that hold
    /// the text, in the order (``TextSearch/walkStart``).
    func firstRowsHolding(_ listing: ListingParts) -> PortableSQL

    /// A listing's page read from the index in its order, newest or oldest first, as far as a full
    /// page (``TextSearch/readInOrder``).
    func matchesInOrder(_ listing: ListingParts) -> PortableSQL

    /// A listing's page from the index's matches, then ordered (``TextSearch/lookUp``).
    func matchesThenOrdered(_ listing: ListingParts) -> PortableSQL

    /// How many documents' search keys hold `key` (folded as a title is), of `owner` if one is
    /// given, counted up to `limit` as the index answers (a column `n`).
    func labelMatches(_ key: String, owner: String?, upTo limit: Int) -> PortableSQL

    /// The ids (`id`) of current documents whose labels hold `query`'s text and that pass
    /// `conditions` (over `d`, the documents), at most `limit`.
    func labels(_ query: PageSearch.Query, passing conditions: PortableSQL, limit: Int) -> PortableSQL

    /// The pages of current documents that hold `query`'s text and pass `conditions` (over `d`,
    /// the documents, `x`, the text derivatives, and `p`, the pages), at most `limit`: `id`,
    /// `derivative`, `page` and `hits` (the page's `occurrences`). A statement that bounds what it
    /// reads first adds a row without `id` whose `candidates` says how many it read.
    func pages(_ query: PageSearch.Query, passing conditions: PortableSQL, occurrences: PortableSQL, limit: Int) -> PortableSQL
}

/// A listing's statement as ``DocumentListing`` composed it before its text is looked for.
package struct ListingParts {
    package var query: DocumentQuery
    /// The text the labels must hold, folded as a title is.
    package var key: String
    /// The query's filters and cursor, without the text.
    package var conditions: [PortableSQL]
    /// That a row's search key holds ``key``.
    package var holdsText: PortableSQL
    /// The order's keys, ending with the id, and its direction.
    package var keys: [OrderKey]
    package var descending: Bool
    /// The columns a row adds to the document's: its sort keys as text (`sort_key_0`, …).
    package var selected: String
    /// The `ORDER BY` clause.
    package var order: String
    /// The documents' table as the filters read it (`d`).
    package var source: String
    /// The most steps a reading in order takes (``TextSearch/leapSteps``).
    package var steps: Int

    /// The rows a statement yields: one more than the page, to tell whether another follows.
    package var page: Int { query.limit + 1 }

    /// The filters and cursor, and the text, joined.
    package var holding: PortableSQL { PortableSQL.joined(conditions + [holdsText], separator: " AND ") }
}
