import Foundation
import PreviewCore

/// How a listing with a text search (`q=`: in the title, the description or the file name) finds
/// its rows, so that a page costs about the same at any size (issue 43).
///
/// Both backends keep a search index that holds the creation order, so a search newest or oldest
/// first reads its matches there, the owner's alone for one owner, in the order's own order and
/// stops at a full page, however far along the order they lie (``readInOrder``): SQLite's FTS5
/// `trigram` table of every version, whose rowids are the documents' `search_order` (the second
/// a version was created, then a count within it) and which holds each version's owner as one
/// trigram; PostgreSQL's postings of the latest versions (`search_postings`: a trigram or the
/// owner, then the version's creation time and id), whose trigrams' postings a leapfrog walk
/// intersects in order (``DocumentListing``). PostgreSQL's walk takes at most ``leapSteps`` steps;
/// a text whose trigrams are each common but rarely together may need more, and is looked up.
///
/// The other orders (title, type, most shared) also keep a trigram index without order
/// (SQLite's FTS5 table, PostgreSQL's `pg_trgm` of the latest versions); the listing first counts
/// the indexed matches, up to ``matchLimit``, and then:
/// - few matches (a text nobody or few have): they are read from the search index and ordered;
/// - many: the first ``walkedRows`` rows of the order are walked and each search key tested, where
///   matches usually come soon; when they do not fill the page there, the matches lie far along
///   the order, and all of them are read from the search index and ordered after all, as long as
///   they are at most ``sortedMatchLimit``; more are refused (`search_too_broad`), a bound on what
///   one request reads whatever the store's size. Neither search index holds these orders.
///
/// Text of one or two characters has no trigram to look up: it is always walked.
package enum TextSearch: Sendable, Equatable {
    /// Walk the order's index, keeping the rows whose search key holds the text.
    case walk
    /// Read the rows whose search key holds the text from the search index, then order them.
    case lookUp
    /// Walk the first ``walkedRows`` rows of the order only: the page is right when it is full.
    case walkStart
    /// Read the matches from the search index in the order's own order, as far as a full page;
    /// newest or oldest first (``indexHolds(_:)``).
    case readInOrder

    /// What a reading in order throws when it took ``leapSteps`` steps before its page was full:
    /// the page is looked up instead.
    package struct ReadingCut: Error {
        package init() {}
    }

    /// The most steps of PostgreSQL's leapfrog walk of a page (``readInOrder``): each seeks every
    /// trigram's next posting, some tens of microseconds.
    package static let leapSteps = 2_000

    /// The seconds of creation times a search index's rowid counts within: `second << orderBits`
    /// is the first rowid of the documents created in that second.
    package static let orderBits = 24

    /// The second of creation of `time` (a creation time as SQLite keeps it: a column, or a cursor's
    /// bound text), whole seconds since 1970, as the search index's rowids count them; NULL for a
    /// text that is no time.
    package static func creationSecond(_ time: PortableSQL) -> PortableSQL {
        "CAST(strftime('%s', \(time)) AS INTEGER)"
    }

    /// The most matches that are read and ordered before the order is walked first. Counting to it
    /// costs a third of a millisecond at 10⁶ documents.
    package static let matchLimit = 1_000

    /// The rows of the order walked before the search index is asked after all: a page of a text
    /// that one row in 200 holds.
    package static let walkedRows = 10_000

    /// The most matches that are read from the search index and ordered: some 25 ms of reading at
    /// 10⁶ documents. A search with more, in an order its index does not hold, whose matches do not
    /// fill a page within the order's first ``walkedRows`` rows, is refused (``tooBroad(_:sort:)``).
    package static let sortedMatchLimit = 10_000

    /// The refusal of a search whose matches are too many to order (``sortedMatchLimit``), with
    /// what to do instead.
    package static func tooBroad(_ text: String, sort: DocumentQuery.Sort) -> PreviewError {
        let held = "More than \(sortedMatchLimit.formatted(.number.locale(Locale(identifier: "en_US")))) documents hold \u{201C}\(text)\u{201D}"
        guard !indexHolds(sort) else { return PreviewError(.searchTooBroad, held + ": add words or a filter.") }
        return PreviewError(
            .searchTooBroad,
            held + ", too many to sort by \(sort.rawValue.replacingOccurrences(of: "_", with: " ")): "
                + "add words or a filter, or sort by newest or oldest.")
    }

    /// Whether the search index can find `key` (folded as a title is): it holds three characters.
    package static func isIndexable(_ key: String) -> Bool {
        key.unicodeScalars.count >= 3
    }

    /// The trigrams of `key` as PostgreSQL's search postings number them (`search_grams`): three
    /// code points in one number, each in 21 bits; at most `limit` of them, spread along the key
    /// (a page's matches are tested for the whole text anyway).
    package static func trigrams(_ key: String, limit: Int = 8) -> [Int64] {
        let points = key.unicodeScalars.map { Int64($0.value) }
        guard points.count >= 3 else { return [] }
        var all: [Int64] = [], seen: Set<Int64> = []
        for start in 0...(points.count - 3) {
            let gram = points[start] << 42 | points[start + 1] << 21 | points[start + 2]
            if seen.insert(gram).inserted { all.append(gram) }
        }
        guard all.count > limit else { return all }
        return (0..<limit).map { all[$0 * (all.count - 1) / max(limit - 1, 1)] }
    }

    /// The way to search `query`'s text: `candidates(n)` counts the rows the order's walk reads
    /// before the text is tested, up to `n + 1` (``DocumentListing/candidates(_:upTo:in:)``);
    /// `matches(key, n)` counts the search index's rows of the query's owner (if any) that hold a
    /// folded text, up to `n` (``DocumentListing/textMatches(_:owner:upTo:in:)``). An
    /// order of at most ``matchLimit`` rows (one owner's documents) is walked whole: that reads
    /// fewer rows than asking the index. Where the search index holds the query's order
    /// (``indexHolds(_:)``), it is read in that order (``readInOrder``), without counting either.
    package static func way(
        for query: DocumentQuery, matches: (String, Int) async throws -> Int,
        candidates: (Int) async throws -> Int
    ) async rethrows -> TextSearch {
        guard let text = query.containing, case let key = DocumentLabels.titleKey(text), isIndexable(key) else { return .walk }
        if indexHolds(query.sort) { return .readInOrder }
        if try await candidates(matchLimit) <= matchLimit { return .walk }
        return choosing(matches: try await matches(key, matchLimit))
    }

    /// Whether the search index holds `sort`'s order: the creation order, either way.
    package static func indexHolds(_ sort: DocumentQuery.Sort) -> Bool {
        sort == .newest || sort == .oldest
    }

    /// The way to search, given how many indexed rows match (counted up to ``matchLimit``).
    package static func choosing(matches: Int) -> TextSearch {
        matches < matchLimit ? .lookUp : .walkStart
    }

    /// A listing's page: `page` lists it made one way, `matches` and `candidates` count as
    /// ``way(for:matches:candidates:)`` says. A walk of the order's start that does not fill the
    /// page is the page when it read every candidate; else the search index is asked after all, as
    /// it is when a reading in order was cut (``ReadingCut``), for at most ``sortedMatchLimit``
    /// matches: more throw ``tooBroad(_:sort:)``.
    package static func page(
        for query: DocumentQuery, page: (TextSearch) async throws -> DocumentPage,
        matches: (String, Int) async throws -> Int, candidates: (Int) async throws -> Int
    ) async throws -> DocumentPage {
        func lookedUp() async throws -> DocumentPage {
            let text = query.containing ?? ""
            guard try await matches(DocumentLabels.titleKey(text), sortedMatchLimit + 1) <= sortedMatchLimit else {
                throw tooBroad(text, sort: query.sort)
            }
            return try await page(.lookUp)
        }
        let way = try await way(for: query, matches: matches, candidates: candidates)
        if way == .readInOrder {
            do { return try await page(way) } catch is ReadingCut { return try await lookedUp() }
        }
        guard way == .walkStart else { return try await page(way) }
        let started = try await page(.walkStart)
        if started.next != nil { return started }
        return try await candidates(walkedRows) <= walkedRows ? started : try await lookedUp()
    }

    /// An FTS5 query of SQLite's `document_search` for the versions whose search key holds `key`,
    /// and, given an `owner`, whose owner is that one (by ``ownerToken(_:)``).
    package static func labelQuery(_ key: String, owner: String? = nil) -> String {
        let holding = "search_key : " + phrase(key)
        guard let owner else { return holding }
        return "owner_key : " + phrase(ownerToken(owner)) + " AND " + holding
    }

    /// An owner as SQLite's search index holds it: one trigram, whose postings are the owner's
    /// versions. Three characters of Unicode's private use area (6,400 of them) from a 64-bit FNV-1a
    /// hash of the name's UTF-8; another owner has the same one time in 2.6 × 10¹¹, and a listing
    /// filters by the owner's name as well. SQLite's connections call it `owner_token`.
    package static func ownerToken(_ owner: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in owner.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var token = String.UnicodeScalarView()
        for _ in 0..<3 {
            token.append(Unicode.Scalar(UInt16(0xE000 + hash % 6_400)) ?? "\u{E000}")
            hash /= 6_400
        }
        return String(token)
    }

    /// An FTS5 query for the rows whose text holds `key`: one phrase, its quotes doubled.
    package static func phrase(_ key: String) -> String {
        "\"" + key.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A `LIKE` pattern for the rows whose text holds `key`, its wildcards and the escape (`\`) escaped.
    package static func likePattern(_ key: String) -> String {
        var escaped = ""
        for character in key {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
