import Foundation
import GRDB
import Logging
import PostgresNIO
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPostgres
import PreviewPipeline
import PreviewStore
import ScaleRun

/// The store-wide search at scale (issue 47): fills a fresh index with N documents of ten pages
/// each (100 owners; each page about 200 words drawn from a vocabulary of 20,000 with Zipf's law,
/// as the words of real text are, and a code such as `CORE012345`), written through the statements
/// a text job writes (``PageTexts/insert(_:of:)``), then times a top-20 search as the API makes it
/// (``DocumentService/searchStore(_:owner:type:limit:offset:)``: the ranking, and each result's
/// document and best hit) for texts from every page to none. Prints one JSON object per measurement.
///
///     search-scale sqlite|postgres://… [documents]
@main
enum SearchScale {
    static func main() async throws {
        let (database, rest) = ScaleRun.arguments(usage: "search-scale sqlite|postgres://… [documents]")
        let count = rest.first.flatMap { Int($0) } ?? 10_000
        let root = ScaleRun.folder("search-scale")
        defer { try? FileManager.default.removeItem(at: root) }
        let offload = Offload(reads: 2, writes: 1, renders: 1)
        let logger = Logger(label: "search-scale")
        let backend = try await StoreBackend(root: root, database: database, offload: offload, logger: logger)
        let name = database == nil ? "sqlite" : "postgres"
        let pages = count * pagesPerDocument
        // The current reading of a PDF's text, as the rows of a text job name it.
        let reading = DocumentPipeline(store: backend.store, offload: offload, logger: logger).textReadings[0]

        var start = ContinuousClock.now
        if let database {
            let connections = try await PostgresConnections(url: database, size: 1, queryTimeout: .seconds(3_600), logger: logger)
            for statement in postgresDocuments(count, reading: reading) { try await connections.query(PostgresQuery(unsafeSQL: statement)) }
        } else {
            let pool = (backend.store.index as! SQLiteIndex).pool
            try await pool.write { db in for statement in sqliteDocuments(count, reading: reading) { try db.execute(sql: statement) } }
        }
        ScaleRun.report(["backend": name, "pages": pages, "measure": "fill documents", "seconds": ScaleRun.seconds(since: start)])

        start = ContinuousClock.now
        var words = Words()
        for first in stride(from: 1, through: count, by: 10) {
            var statements: [PortableSQL] = []
            for document in first..<min(count + 1, first + 10) {
                let texts = (1...pagesPerDocument).map { words.page($0, code: document * pagesPerDocument + $0) }
                statements += PageTexts.insert(texts, of: "text-\(document)")
            }
            let batch = statements
            try await backend.store.index.runPlan(serializing: nil) { .each(batch, then: ()) }
        }
        let written = ScaleRun.seconds(since: start)
        ScaleRun.report([
            "backend": name, "pages": pages, "measure": "write pages (a text job's statements)", "seconds": written,
            "ms_per_page": written * 1000 / Double(pages)
        ])
        if let database {
            let connections = try await PostgresConnections(url: database, size: 1, queryTimeout: .seconds(3_600), logger: logger)
            try await connections.query("VACUUM ANALYZE")
        }

        let documents = DocumentService(backend: backend, offload: offload, logger: logger)
        let vocabulary = Words.vocabulary
        let searches: [(String, String, String?)] = [
            ("a word on every page", vocabulary[0], nil),
            ("a word on about 17 % of pages", vocabulary[99], nil),
            ("a word on about 2 % of pages", vocabulary[999], nil),
            ("a word on about 0.2 % of pages", vocabulary[9_999], nil),
            ("two words as a phrase", "\(vocabulary[9]) \(vocabulary[10])", nil),
            ("inside a code (10 pages)", "RE\(String(format: "%06d", pages / 20).prefix(5))", nil),
            ("a text nobody has", "zzqxv", nil),
            ("titles (title 12…)", "title 12", nil),
            ("a word on every page, one owner", vocabulary[0], "owner-7"),
            ("a word on about 2 % of pages, one owner", vocabulary[999], "owner-7")
        ]
        for (what, text, owner) in searches {
            let hits = TextHits(query: text)!
            var times: [Double] = []
            var found = 0
            var complete = true
            do {
                for _ in 0..<runs {
                    let began = ContinuousClock.now
                    let page = try await documents.searchStore(hits, owner: owner, type: nil, limit: 20, offset: 0)
                    times.append(ScaleRun.seconds(since: began) * 1000)
                    (found, complete) = (page.hits.count, page.complete)
                }
            } catch {
                ScaleRun.report(["backend": name, "pages": pages, "measure": what, "error": "\(error)"])
                continue
            }
            times.sort()
            ScaleRun.report([
                "backend": name, "pages": pages, "measure": what, "query": text, "results": found, "complete": complete,
                "p50_ms": times[times.count / 2], "p95_ms": times[min(times.count - 1, Int(Double(times.count) * 0.95))], "runs": runs
            ])
        }
    }

    static let pagesPerDocument = 10
    static let runs = 40

    /// Document `i`'s rows: its original's blob, the document (100 owners), its text derivative
    /// (keyed `text-i`, of `reading`, the current PDF reading).
    static func sqliteDocuments(_ count: Int, reading: String) -> [String] {
        let series = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))"
        let hash = "printf('%064d', i)", result = "printf('%064d', i + 100000000)"
        return [
            "\(series) INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(hash), 50000, 'application/pdf', datetime('now') FROM n",
            "\(series) INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(result), 100, 'application/json', datetime('now') FROM n",
            """
            \(series) INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, pages, version,
                                             preview_status, created_at)
            SELECT 'doc-' || i, 'owner-' || (i % 100), 'transcript', 'title ' || i, 'title ' || i, 'title ' || i || char(10) || char(10) || 'file-' \
            || i,
                   'file-' || i, \(hash), 'pdf', 'application/pdf', 50000, \(pagesPerDocument), 1, 'ready', datetime('now', '-' || i || ' seconds') \
                   FROM n
            """,
            """
            \(series) INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at, \
            on_demand, used_at)
            SELECT 'text-' || i, \(hash), 'text', 'text.json', '\(reading)', \(result), 0, 0, datetime('now'), 0, datetime('now') FROM n
            """
        ]
    }

    static func postgresDocuments(_ count: Int, reading: String) -> [String] {
        let hash = "lpad(i::text, 64, '0')", result = "lpad((i + 100000000)::text, 64, '0')"
        var statements: [String] = []
        for first in stride(from: 1, through: count, by: 2000) {
            let series = "FROM generate_series(\(first), \(min(count, first + 1999))) AS n(i)"
            statements += [
                "INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(hash), 50000, 'application/pdf', now() \(series)",
                "INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(result), 100, 'application/json', now() \(series)",
                """
                INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, pages, version,
                                       preview_status, created_at)
                SELECT 'doc-' || i, 'owner-' || (i % 100), 'transcript', 'title ' || i, 'title ' || i, 'title ' || i || chr(10) || chr(10) || \
                'file-' || i,
                       'file-' || i, \(hash), 'pdf', 'application/pdf', 50000, \(pagesPerDocument), 1, 'ready', now() - i * interval '1 second' \
                       \(series)
                """,
                """
                INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at, on_demand, \
                used_at)
                SELECT 'text-' || i, \(hash), 'text', 'text.json', '\(reading)', \(result), 0, 0, now(), false, now() \(series)
                """
            ]
        }
        return statements
    }
}

/// Pages of synthetic text: words of a fixed vocabulary drawn with Zipf's law (the word of rank r
/// is 1/r as frequent as the first), laid out in lines of a Letter page, from a seeded generator.
struct Words {
    static let vocabularySize = 20_000
    static let wordsPerPage = 200

    /// Words of two to four syllables, all different, in rank order.
    static let vocabulary: [String] = {
        let consonants = Array("bcdfghjklmnprstvz"), vowels = Array("aeiou")
        var words: [String] = []
        var seen = Set<String>()
        var random = SplitMix(seed: 47)
        while words.count < vocabularySize {
            let syllables = 2 + Int(random.next() % 3)
            let word = String(
                (0..<syllables).flatMap { _ in
                    [consonants[Int(random.next() % UInt64(consonants.count))], vowels[Int(random.next() % UInt64(vowels.count))]]
                })
            if seen.insert(word).inserted { words.append(word) }
        }
        return words
    }()

    /// The cumulative Zipf weights of the ranks.
    static let cumulative: [Double] = {
        var total = 0.0
        return (1...vocabularySize).map {
            total += 1 / Double($0); return total
        }
    }()

    var random = SplitMix(seed: 2026)

    /// Page `number`'s text, its code `CORE` and `code` in six digits among its words.
    mutating func page(_ number: Int, code: Int) -> PageText {
        var words: [PageText.Word] = []
        let (left, top, lineHeight, perLine) = (72.0, 72.0, 14.0, 12)
        for index in 0..<Self.wordsPerPage {
            let text = index == Self.wordsPerPage / 2 ? "CORE" + String(format: "%06d", code) : Self.vocabulary[rank()]
            let (line, column) = (index / perLine, index % perLine)
            let x = left + Double(column) * 40
            let y = top + Double(line) * lineHeight
            words.append(PageText.Word(text: text, box: [x, y, x + 36, y + 11], next: column == perLine - 1 ? .line : .space))
        }
        return PageText(page: number, width: 612, height: 792, words: words)
    }

    private mutating func rank() -> Int {
        let target = Double(random.next() % 1_000_000_000) / 1e9 * Self.cumulative[Self.cumulative.count - 1]
        var (low, high) = (0, Self.cumulative.count - 1)
        while low < high {
            let middle = (low + high) / 2
            if Self.cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A small seeded generator (SplitMix64): the same pages on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
