import Foundation
import PreviewCore

/// How a listing with a title search (`q=`) finds its rows, so that a page costs about the same at
/// any size (issue 43). Each backend keeps a trigram index of the latest versions' title keys
/// (SQLite's FTS5 `trigram` tokenizer, PostgreSQL's `pg_trgm`); the listing first counts the
/// indexed matches, up to ``matchLimit``, and then:
/// - few matches (a title nobody or few have): they are read from the title index and ordered;
/// - many: the order's index is walked and each title tested, where matches come soon.
///
/// Text of one or two characters has no trigram to look up: it is always walked.
public enum TitleSearch: Sendable, Equatable {
    /// Walk the order's index, keeping the rows whose title holds the text.
    case walk
    /// Read the rows whose title holds the text from the title index, then order them.
    case lookUp

    /// The most matches that are read and ordered; above it the order's index is walked. Counting
    /// to it costs a third of a millisecond at 10⁶ documents; ordering that many costs about as much
    /// as walking to a page of matches as frequent as 1 in 1,000. A title whose matches are more
    /// but lie far along the order (the oldest first of many recent ones) walks far: measured in
    /// docs/performance/index-scale.md.
    public static let matchLimit = 1_000

    /// Whether the title index can find `key` (a folded title key): it holds three characters.
    public static func isIndexable(_ key: String) -> Bool {
        key.unicodeScalars.count >= 3
    }

    /// The way to search `query`'s title: `matches` counts the title index's rows that hold a
    /// title key, up to ``matchLimit``.
    public static func way(for query: DocumentQuery, matches: (String) throws -> Int) rethrows -> TitleSearch {
        guard let text = query.titleContains, case let key = DocumentLabels.titleKey(text), isIndexable(key) else { return .walk }
        return choosing(matches: try matches(key))
    }

    /// The way to search, given how many indexed rows match (counted up to ``matchLimit``).
    public static func choosing(matches: Int) -> TitleSearch {
        matches < matchLimit ? .lookUp : .walk
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
