import Foundation
import PreviewCore

/// How a listing with a text search (`q=`: in the title, the description or the file name) finds
/// its rows, so that a page costs about the same at any size (issue 43). Each backend keeps a
/// trigram index of the search keys (SQLite's FTS5 `trigram` table of every version, PostgreSQL's
/// `pg_trgm` of the latest); the listing first counts the indexed matches, up to ``matchLimit``, and then:
/// - few matches (a text nobody or few have): they are read from the search index and ordered;
/// - many: the first ``walkedRows`` rows of the order are walked and each search key tested, where
///   matches usually come soon; when they do not fill the page there, the matches lie far along
///   the order, and all of them are read from the search index and ordered after all.
///
/// Text of one or two characters has no trigram to look up: it is always walked.
public enum TextSearch: Sendable, Equatable {
    /// Walk the order's index, keeping the rows whose search key holds the text.
    case walk
    /// Read the rows whose search key holds the text from the search index, then order them.
    case lookUp
    /// Walk the first ``walkedRows`` rows of the order only: the page is right when it is full.
    case walkStart

    /// The most matches that are read and ordered before the order is walked first. Counting to it
    /// costs a third of a millisecond at 10⁶ documents.
    public static let matchLimit = 1_000

    /// The rows of the order walked before the search index is asked after all: a page of a text
    /// that one row in 200 holds.
    public static let walkedRows = 10_000

    /// Whether the search index can find `key` (folded as a title is): it holds three characters.
    public static func isIndexable(_ key: String) -> Bool {
        key.unicodeScalars.count >= 3
    }

    /// The way to search `query`'s text: `candidates(n)` counts the rows the order's walk reads
    /// before the text is tested, up to `n + 1` (``DocumentListing/candidates(_:upTo:in:)``);
    /// `matches` counts the search index's rows that hold a folded text, up to ``matchLimit``. An
    /// order of at most ``matchLimit`` rows (one owner's documents) is walked whole: that reads
    /// fewer rows than asking the index.
    public static func way(for query: DocumentQuery, matches: (String) async throws -> Int,
                           candidates: (Int) async throws -> Int) async rethrows -> TextSearch {
        guard let text = query.containing, case let key = DocumentLabels.titleKey(text), isIndexable(key) else { return .walk }
        if try await candidates(matchLimit) <= matchLimit { return .walk }
        return choosing(matches: try await matches(key))
    }

    /// The way to search, given how many indexed rows match (counted up to ``matchLimit``).
    public static func choosing(matches: Int) -> TextSearch {
        matches < matchLimit ? .lookUp : .walkStart
    }

    /// A listing's page: `page` lists it made one way, `matches` and `candidates` count as
    /// ``way(for:matches:candidates:)`` says. A walk of the order's start that does not fill the
    /// page is the page when it read every candidate; else the search index is asked after all.
    public static func page(for query: DocumentQuery, page: (TextSearch) async throws -> DocumentPage,
                            matches: (String) async throws -> Int, candidates: (Int) async throws -> Int) async throws -> DocumentPage {
        let way = try await way(for: query, matches: matches, candidates: candidates)
        guard way == .walkStart else { return try await page(way) }
        let started = try await page(.walkStart)
        if started.next != nil { return started }
        return try await candidates(walkedRows) <= walkedRows ? started : try await page(.lookUp)
    }

    /// An FTS5 query for the rows whose text holds `key`: one phrase, its quotes doubled.
    public static func phrase(_ key: String) -> String {
        "\"" + key.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A `LIKE` pattern for the rows whose text holds `key`, its wildcards and the escape (`\`) escaped.
    public static func likePattern(_ key: String) -> String {
        var escaped = ""
        for character in key {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
