import Foundation
import PreviewCore

/// How a listing with a title search (`q=`) finds its rows, so that a page costs about the same at
/// any size (issue 43). Each backend keeps a trigram index of the titles (SQLite's FTS5 `trigram`
/// tokenizer, PostgreSQL's `pg_trgm`). A search first glances at the first ``glanceRows`` rows
/// of the order (their ids, from the order's index): a common title fills its page there, and a
/// listing that short (one owner's few documents) is done there. Otherwise it counts the indexed
/// matches, up to ``matchLimit``, and then
/// - reads fewer from the title index and orders them (a title nobody or few have);
/// - walks the order's index for more, testing each title.
///
/// Text of one or two characters has no trigram to look up: it is always walked.
public enum TitleSearch: Sendable, Equatable {
    /// Walk the order's index, keeping the rows whose title holds the text.
    case walk
    /// Read the rows whose title holds the text from the title index, then order them.
    case lookUp
    /// Keep the rows whose title holds the text among these (the ids of the first rows of the order).
    case among([String])

    /// The rows of the order a search glances at before it asks the title index: their ids are read
    /// from the order's index alone, and a title that one document in a hundred has fills a page.
    public static let glanceRows = 5_000

    /// The most matches that are read and ordered; above it the order's index is walked. At
    /// 10⁶ documents ordering them costs under 10 ms, and more are 2 % of the titles or more.
    public static let matchLimit = 20_000

    /// Whether the title index can find `key` (a folded title key): it holds three characters.
    public static func isIndexable(_ key: String) -> Bool {
        key.unicodeScalars.count >= 3
    }

    /// The way to search, given how many indexed rows match (counted up to ``matchLimit``).
    public static func choosing(matches: Int) -> TitleSearch {
        matches < matchLimit ? .lookUp : .walk
    }

    /// A listing's page: `page` lists it made one way, `glance` reads the ids of the first
    /// ``glanceRows`` rows of its order (its title aside), `matches` counts the title index's rows
    /// that hold a title key, up to ``matchLimit``.
    public static func page(for query: DocumentQuery, page: (TitleSearch) throws -> DocumentPage, glance: () throws -> [String],
                            matches: (String) throws -> Int) throws -> DocumentPage {
        guard let text = query.titleContains, case let key = DocumentLabels.titleKey(text), isIndexable(key) else { return try page(.walk) }
        let first = try glance()
        let glanced = try page(.among(first))
        // A full page is the first matches; fewer rows than a glance's are the whole order.
        if glanced.next != nil || first.count < glanceRows { return glanced }
        return try page(choosing(matches: try matches(key)))
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
