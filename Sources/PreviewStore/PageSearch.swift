import Foundation
import PreviewCore

/// A search of the whole store (issue 47): the current documents whose pages' text, or whose
/// title, description, file name or school, holds a text; ranked, written once for both backends.
///
/// Both backends look the text up by trigram in the same folded text (``TextHits/searchText(of:)``,
/// folded in Swift as a document's own hits are: case, diacritics and width): SQLite's FTS5
/// `trigram` table `page_search` over `page_texts`, PostgreSQL's `pg_trgm` index on the column. So a
/// text matches inside words ("RE16" in "CORE168") and across them, and both backends find the
/// same pages. The labels are looked up in the listing's search index (``TextSearch``).
///
/// The work is bounded whatever the store's size: at most ``candidatePages`` matching pages and
/// ``candidateLabels`` matching labels are read (a text on more pages is ranked among those the
/// index yields first, and the answer says it is not complete), on PostgreSQL a text of several
/// words is looked for in at most ``phraseCandidates`` pages holding its longest word, and the read
/// stops at ``timeout``.
/// A search of one owner with at most ``walkedPages`` pages walks their pages instead of asking
/// the index: the index's matches of a common text are mostly other owners'.
package struct PageSearch: Sendable {
    let database: any PortableDatabase

    package init(database: any PortableDatabase) {
        self.database = database
    }

    /// What to look for, and where.
    package struct Query: Sendable {
        /// The text as pages are folded (``TextHits/needle``), at least ``TextHits/storeWideMinimum`` long.
        package var needle: String
        /// The text as labels are folded (``DocumentLabels/titleKey(_:)``).
        package var labelKey: String
        package var owner: String?
        package var type: String?
        /// The text derivatives' `renderer`s that are current (a reading an older version made is
        /// not searched: it is replaced as documents are read again).
        package var readings: [String]

        package init(needle: String, labelKey: String, owner: String?, type: String?, readings: [String]) {
            (self.needle, self.labelKey, self.owner, self.type, self.readings) = (needle, labelKey, owner, type, readings)
        }
    }

    /// A document that holds the text.
    package struct Match: Sendable, Equatable {
        package var documentID: String
        /// Its labels (title, description, file name, school) hold the text.
        package var inLabels = false
        /// How often its pages read hold the text.
        package var occurrences = 0
        /// The page that holds it most often (the first of those), and that page's text derivative.
        package var page: Int?
        package var derivative: String?
        var pageOccurrences = 0
    }

    /// The most matching pages read for one search.
    package static let candidatePages = 1_000
    /// The most matching labels read for one search.
    package static let candidateLabels = 1_000
    /// The most pages of one owner walked rather than looked up.
    package static let walkedPages = 20_000
    /// The longest one search's reads may take.
    package static let timeout: Duration = .seconds(2)

    /// The documents that hold `query`'s text, best first: those whose labels hold it, then by how
    /// often their pages do, then by id. `complete` is false when a bound cut the reading short.
    package func matches(_ query: Query, timeout: Duration = Self.timeout) async throws -> (matches: [Match], complete: Bool) {
        let dialect = database.dialect
        let (labels, pages) = (Self.labelStatement(query, in: dialect), Self.pageStatement(query, in: dialect))
        let (owned, walk) = (Self.ownedPages(query, in: dialect), Self.walkStatement(query, in: dialect))
        let (labelRows, pageRows) = try await database.readPlan(timeout: timeout) {
            .statement(labels) { labelRows in
                // One owner's pages, when they are few enough, are walked; else the index is asked.
                let walks = SQLPlan<PortableRow, Bool>.statement(owned ?? "SELECT 0 AS n") { counted in
                    .done(owned != nil && (counted.first?.integer("n") ?? .max) <= Self.walkedPages)
                }
                return walks.then { walking in .statement(walking ? walk : pages) { .done((labelRows, $0)) } }
            }
        }
        var found: [String: Match] = [:]
        for row in labelRows.prefix(Self.candidateLabels) {
            guard let id = row.text("id") else { continue }
            found[id, default: Match(documentID: id)].inLabels = true
        }
        // PostgreSQL's search for several words says first how many pages it read (``SearchIndex/pages(_:passing:occurrences:limit:)``).
        let readAll = pageRows.compactMap { $0.integer("candidates") }.allSatisfy { $0 <= Self.phraseCandidates }
        let matchingPages = pageRows.filter { $0.text("id") != nil }
        for row in matchingPages.prefix(Self.candidatePages) {
            guard let id = row.text("id"), let page = row.integer("page").map(Int.init) else { continue }
            let occurrences = Int(row.integer("hits") ?? 0)
            var match = found[id, default: Match(documentID: id)]
            match.occurrences += occurrences
            if occurrences > match.pageOccurrences || (occurrences == match.pageOccurrences && page < (match.page ?? .max)) {
                (match.page, match.derivative, match.pageOccurrences) = (page, row.text("derivative"), occurrences)
            }
            found[id] = match
        }
        let ranked = found.values.sorted { left, right in
            if left.inLabels != right.inLabels { return left.inLabels }
            if left.occurrences != right.occurrences { return left.occurrences > right.occurrences }
            return left.documentID < right.documentID
        }
        return (ranked, labelRows.count <= Self.candidateLabels && matchingPages.count <= Self.candidatePages && readAll)
    }

    /// The filters every match passes: current versions, and the query's owner and type.
    private static func documentConditions(_ query: Query) -> [PortableSQL] {
        var conditions: [PortableSQL] = ["d.latest"]
        if let owner = query.owner { conditions.append("d.owner = \(owner)") }
        if let type = query.type { conditions.append("d.type = \(type)") }
        return conditions
    }

    /// The current documents whose labels hold the text, one more than read.
    static func labelStatement(_ query: Query, in dialect: SQLDialect) -> PortableSQL {
        let conditions = PortableSQL.joined(documentConditions(query), separator: " AND ")
        return dialect.searchIndex.labels(query, passing: conditions, limit: candidateLabels + 1)
    }

    /// The pages of the matching documents' current text derivatives, from the documents (for one owner).
    private static func ownerPages(_ query: Query, in dialect: SQLDialect) -> (from: String, conditions: PortableSQL) {
        let join = dialect.joinInOrder
        return ("documents d \(join) derivatives x ON x.source_sha256 = d.sha256 \(join) page_texts p ON p.derivative = x.key", textConditions(query))
    }

    /// The filters every matching page passes: its document's, and a current reading's derivative (`x`).
    private static func textConditions(_ query: Query) -> PortableSQL {
        let readings = PortableSQL.list(query.readings)
        return PortableSQL.joined(documentConditions(query) + ["x.operation = 'text'", "x.renderer IN (\(readings))"], separator: " AND ")
    }

    /// How many pages a walk of the query's owner's documents would read, counted up to
    /// ``walkedPages`` + 1; nil for a search of every owner.
    static func ownedPages(_ query: Query, in dialect: SQLDialect) -> PortableSQL? {
        guard query.owner != nil else { return nil }
        let (from, conditions) = ownerPages(query, in: dialect)
        return "SELECT COUNT(*) AS n FROM (SELECT 1 FROM \(raw: from) WHERE \(conditions) LIMIT \(walkedPages + 1)) AS owned"
    }

    /// The pages of the query's owner's documents that hold the text, each tested in turn.
    static func walkStatement(_ query: Query, in dialect: SQLDialect) -> PortableSQL {
        let (from, conditions) = ownerPages(query, in: dialect)
        return """
            SELECT d.id AS id, p.derivative AS derivative, p.page AS page, \(occurrences(query)) AS hits FROM \(raw: from)
            WHERE \(conditions) AND \(dialect.holds("p.search_text", query.needle)) LIMIT \(candidatePages + 1)
            """
    }

    /// How often a page's search text holds the query's.
    private static func occurrences(_ query: Query) -> PortableSQL {
        "(length(p.search_text) - length(replace(p.search_text, \(query.needle), ''))) / \(query.needle.count)"
    }

    /// The pages of current documents that hold the text, with how often, one more than read.
    static func pageStatement(_ query: Query, in dialect: SQLDialect) -> PortableSQL {
        dialect.searchIndex.pages(query, passing: textConditions(query), occurrences: occurrences(query), limit: candidatePages + 1)
    }

    /// The pages holding a text of several words that PostgreSQL reads at most (``TrigramSearch``).
    package static let phraseCandidates = 3_000

    /// The longest whole word of a text of several words, when it has three characters or more
    /// (a trigram to look up); nil for one word.
    static func longestWord(of needle: String) -> String? {
        let words = needle.split(separator: " ")
        // The first and last words may be parts of longer ones: the text may start or end inside a word.
        guard words.count > 1, let longest = words.max(by: { $0.count < $1.count }), longest.count >= 3 else { return nil }
        return String(longest)
    }
}
