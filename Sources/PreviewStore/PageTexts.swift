import Foundation
import PreviewCore

/// The pages of documents' text in the index, written once for both backends: one row per page
/// of a text derivative (its plain text, its words with their boxes as JSON), written in the
/// transaction that records the derivative and removed with it (`ON DELETE CASCADE`: `gc`, a
/// deleted document's last version).
public struct PageTexts: Sendable {
    let database: any PortableDatabase

    public init(database: any PortableDatabase) {
        self.database = database
    }

    /// SQLite's table (PostgreSQL's migration says the same in its types).
    static let sqliteTable = """
        CREATE TABLE page_texts (derivative TEXT NOT NULL REFERENCES derivatives (key) ON DELETE CASCADE, page INTEGER NOT NULL,
            width REAL NOT NULL, height REAL NOT NULL, text TEXT NOT NULL, words TEXT NOT NULL, truncated BOOLEAN NOT NULL,
            PRIMARY KEY (derivative, page))
        """

    /// The rows of `pages`, of text derivative `derivative` (first writer wins, as the derivative's own row).
    public static func insert(_ pages: [PageText], of derivative: String) -> [PortableSQL] {
        pages.map { page in
            let words = (try? JSONEncoder().encode(page.words)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            return """
                INSERT INTO page_texts (derivative, page, width, height, text, words, truncated)
                VALUES (\(derivative), \(page.page), \(page.width), \(page.height), \(page.plainText), \(words), \(page.truncated))
                ON CONFLICT DO NOTHING
                """
        }
    }

    /// A page as the index keeps it: its plain text in reading order, and its words with their
    /// boxes when they were asked for.
    public struct Page: Sendable {
        public var page: Int
        public var text: String
        public var words: PageText?
    }

    /// The pages of text derivative `derivative` in `range` (every page when nil), in order, with
    /// their words when `words` (else only their text, a fraction of the bytes).
    public func pages(of derivative: String, in range: ClosedRange<Int>? = nil, words: Bool) async throws -> [Page] {
        let (first, last) = (range?.lowerBound ?? 1, range?.upperBound ?? Int(Int32.max))
        let columns = words ? "page, text, width, height, words, truncated" : "page, text"
        return try await database.runPlan(serializing: nil) {
            .statement("""
                SELECT \(raw: columns) FROM page_texts WHERE derivative = \(derivative) AND page BETWEEN \(first) AND \(last) ORDER BY page
                """) { rows in
                .done(try rows.map { row in
                    let number = Int(row.integer("page") ?? 0)
                    var page = Page(page: number, text: row.text("text") ?? "")
                    if words {
                        let list = try JSONDecoder().decode([PageText.Word].self, from: Data((row.text("words") ?? "[]").utf8))
                        page.words = PageText(page: number, width: row.real("width") ?? 0, height: row.real("height") ?? 0, words: list,
                                              truncated: row.bool("truncated") ?? false)
                    }
                    return page
                })
            }
        }
    }
}
