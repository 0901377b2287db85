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

    /// The pages of text derivative `derivative` in `range` (every page when nil), in order, with their words.
    public func pages(of derivative: String, in range: ClosedRange<Int>? = nil) async throws -> [PageText] {
        let (first, last) = (range?.lowerBound ?? 1, range?.upperBound ?? Int(Int32.max))
        return try await database.runPlan(serializing: nil) {
            .statement("""
                SELECT page, width, height, words, truncated FROM page_texts
                WHERE derivative = \(derivative) AND page BETWEEN \(first) AND \(last) ORDER BY page
                """) { rows in
                .done(try rows.map { row in
                    let words = try JSONDecoder().decode([PageText.Word].self, from: Data((row.text("words") ?? "[]").utf8))
                    return PageText(page: Int(row.integer("page") ?? 0), width: row.real("width") ?? 0, height: row.real("height") ?? 0,
                                    words: words, truncated: row.bool("truncated") ?? false)
                })
            }
        }
    }

    /// The plain text of every page of text derivative `derivative`, in order (without the words).
    public func plainTexts(of derivative: String) async throws -> [(page: Int, text: String)] {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT page, text FROM page_texts WHERE derivative = \(derivative) ORDER BY page") { rows in
                .done(rows.map { (Int($0.integer("page") ?? 0), $0.text("text") ?? "") })
            }
        }
    }
}
