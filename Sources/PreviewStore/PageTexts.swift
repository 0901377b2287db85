import Foundation
import PreviewCore

/// The pages of documents' text in the index, written once for both backends: one row per page
/// of a text derivative (its plain text, its words with their boxes as JSON), written in the
/// transaction that records the derivative and removed with it (`ON DELETE CASCADE`: `gc`, a
/// deleted document's last version). Each row keeps its page's ``TextHits/searchText(of:)`` too,
/// which the store's search index holds by trigram (``PageSearch``).
public struct PageTexts: Sendable {
    let database: any PortableDatabase

    package init(database: any PortableDatabase) {
        self.database = database
    }

    /// SQLite's table (PostgreSQL's migration says the same in its types). Its rowid is a column
    /// (`id`), so that the search index's rows, which name it, keep naming the same page.
    static let sqliteTable = """
        CREATE TABLE page_texts (id INTEGER PRIMARY KEY, derivative TEXT NOT NULL REFERENCES derivatives (key) ON DELETE CASCADE,
            page INTEGER NOT NULL, width REAL NOT NULL, height REAL NOT NULL, text TEXT NOT NULL, words TEXT NOT NULL,
            truncated BOOLEAN NOT NULL, search_text TEXT NOT NULL DEFAULT '', UNIQUE (derivative, page))
        """

    /// The rows of `pages`, of text derivative `derivative` (first writer wins, as the derivative's own row).
    public static func insert(_ pages: [PageText], of derivative: String) -> [PortableSQL] {
        pages.map { page in
            let words = storedWords(page.words)
            return """
                INSERT INTO page_texts (derivative, page, width, height, text, words, truncated, search_text)
                VALUES (\(derivative), \(page.page), \(page.width), \(page.height), \(page.plainText), \(words), \(page.truncated),
                        \(TextHits.searchText(of: page.words)))
                ON CONFLICT DO NOTHING
                """
        }
    }

    /// The longest a read of one document's pages may take.
    static let readTimeout: Duration = .seconds(30)

    /// A page as the index keeps it: its plain text in reading order, and its words with their
    /// boxes when they were asked for.
    package struct Page: Sendable {
        package var page: Int
        package var text: String
        package var words: PageText?
    }

    /// The pages of text derivative `derivative` in `range` (every page when nil), in order, with
    /// their words when `words` (else only their text, a fraction of the bytes).
    package func pages(of derivative: String, in range: ClosedRange<Int>? = nil, words: Bool) async throws -> [Page] {
        let (first, last) = (range?.lowerBound ?? 1, range?.upperBound ?? Int(Int32.max))
        let columns = words ? "page, text, width, height, words, truncated" : "page, text"
        return try await database.readPlan(timeout: Self.readTimeout) {
            .statement(
                """
                SELECT \(raw: columns) FROM page_texts WHERE derivative = \(derivative) AND page BETWEEN \(first) AND \(last) ORDER BY page
                """
            ) { rows in
                .done(
                    try rows.map { row in
                        Page(page: Int(row.integer("page") ?? 0), text: row.text("text") ?? "", words: words ? try Self.pageText(row) : nil)
                    })
            }
        }
    }

    /// The words of each page of `pages` (a text derivative and a page number each) that the index
    /// holds, read in one statement: the pages a store-wide search shows its hits on.
    package func words(of pages: [(derivative: String, page: Int)]) async throws -> [String: [Int: PageText]] {
        guard !pages.isEmpty else { return [:] }
        let wanted = PortableSQL.anyOf(pages.map { "(derivative = \($0.derivative) AND page = \($0.page))" })
        return try await database.readPlan(timeout: Self.readTimeout) {
            .statement("SELECT derivative, page, width, height, words, truncated FROM page_texts WHERE \(wanted)") { rows in
                var found: [String: [Int: PageText]] = [:]
                for row in rows {
                    let page = try Self.pageText(row)
                    found[row.text("derivative") ?? "", default: [:]][page.page] = page
                }
                return .done(found)
            }
        }
    }

    /// A row's page with its words (its `page`, `width`, `height`, `words` and `truncated`).
    private static func pageText(_ row: PortableRow) throws -> PageText {
        let words = try words(stored: row.text("words") ?? "")
        return PageText(
            page: Int(row.integer("page") ?? 0), width: row.real("width") ?? 0, height: row.real("height") ?? 0, words: words,
            truncated: row.bool("truncated") ?? false)
    }

    /// A page's words as the index keeps them: JSON of columns, `{"text":[…],"box":[l,t,r,b,…],"next":"…"}`
    /// (what follows each word, one letter: ``breaks``) and `"edges":[[…],…]` when words have them,
    /// which decodes in half the time of one object a word; a search decodes the pages it shows.
    package static func storedWords(_ words: [PageText.Word]) -> String {
        let edges = words.contains { $0.edges != nil } ? words.map { $0.edgeTenths ?? [] } : nil
        let columns = StoredWords(
            text: words.map(\.text), box: words.flatMap { $0.box.count == 4 ? $0.box : [0, 0, 0, 0] },
            next: String(words.map { letters[$0.next] ?? "." }), edges: edges)
        return (try? JSONEncoder().encode(columns)).map { String(decoding: $0, as: UTF8.self) } ?? #"{"text":[],"box":[],"next":""}"#
    }

    /// The words ``storedWords(_:)`` kept; before migration v22 the index kept one object a word, which is read too.
    package static func words(stored text: String) throws -> [PageText.Word] {
        let bytes = Data(text.utf8)
        guard bytes.first != UInt8(ascii: "[") else { return try JSONDecoder().decode([PageText.Word].self, from: bytes) }
        let columns = try JSONDecoder().decode(StoredWords.self, from: bytes)
        let next = Array(columns.next)
        guard columns.box.count == 4 * columns.text.count, next.count == columns.text.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a page's word columns differ in length"))
        }
        let edges = columns.edges?.count == columns.text.count ? columns.edges : nil
        return columns.text.indices.map { index in
            let box = Array(columns.box[(4 * index)..<(4 * index + 4)])
            let stored = edges?[index] ?? []
            return PageText.Word(
                text: columns.text[index], box: box, next: breaks[next[index]] ?? nil,
                edges: stored.isEmpty ? nil : PageText.Word.edges(tenths: stored, left: box[0]))
        }
    }

    private struct StoredWords: Codable {
        var text: [String]
        var box: [Double]
        var next: String
        /// Each word's ``PageText/Word/edgeTenths`` (none when no word has them).
        var edges: [[Int]]?
    }

    /// The letter of each break in ``storedWords(_:)`` (`.` for none).
    private static let breaks: [Character: PageText.Break?] = [" ": .space, "l": .line, "h": .hyphen, "b": .block, ".": nil]
    private static let letters = Dictionary(uniqueKeysWithValues: breaks.map { ($0.value, $0.key) })
}
