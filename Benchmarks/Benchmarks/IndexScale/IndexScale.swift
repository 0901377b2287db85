import Foundation
import GRDB
import Logging
import PostgresNIO
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPostgres
import PreviewStore
import ScaleRun

/// The index at scale: fills a fresh index with N synthetic documents (an owner for every 100, five types and
/// kinds, a thumbnail each, one in 97 shared, one in 53 failed; the rows go through the same
/// triggers as real ones), then times what could grow with the store: the statistics, and the first
/// and next page of every listing sort and filter, store-wide and for one owner. Prints one JSON
/// object per measurement.
///
///     index-scale sqlite|postgres://… [documents]
@main
enum IndexScale {
    static func main() async throws {
        let (database, rest) = ScaleRun.arguments(usage: "index-scale sqlite|postgres://… [documents]")
        let count = rest.first.flatMap { Int($0) } ?? 1_000_000
        let root = ScaleRun.folder("index-scale")
        defer { try? FileManager.default.removeItem(at: root) }
        let offload = Offload(reads: 1, writes: 1, renders: 1)
        let backend = try await StoreBackend(root: root, database: database, offload: offload, logger: Logger(label: "index-scale"))
        let name = database == nil ? "sqlite" : "postgres"

        let fillStart = ContinuousClock.now
        if let database {
            let connections = try await PostgresConnections(
                url: database, size: 1, queryTimeout: .seconds(3_600), logger: Logger(label: "index-scale"))
            for statement in postgresFill(count) { try await connections.query(PostgresQuery(unsafeSQL: statement)) }
        } else {
            let pool = (backend.store.index as! SQLiteIndex).pool
            try await pool.write { db in for statement in sqliteFill(count) { try db.execute(sql: statement) } }
        }
        ScaleRun.report(["backend": name, "documents": count, "measure": "fill", "seconds": ScaleRun.seconds(since: fillStart)])

        let index = backend.store.index
        let kept = try await index.statistics()
        guard kept.documents == count else { throw ScaleError("kept statistics say \(kept.documents) documents, not \(count)") }
        await measure(name, count, "stats (kept counters)", runs: 50) { _ in _ = try await index.statistics() }
        await measure(name, count, "stats of one owner (kept counters)", runs: 50) { _ in _ = try await index.statistics(owner: "owner-7") }
        await measure(name, count, "stats (recounted from the rows, as before)", runs: 1) { _ in _ = try await index.recountStatistics(owner: nil) }
        await measure(name, count, "stats of one owner (recounted, as before)", runs: 1) { _ in
            _ = try await index.recountStatistics(owner: "owner-7")
        }
        for (what, query) in listings {
            for owner in [nil, "owner-7"] {
                var first = query
                first.owner = owner
                let scope = owner == nil ? "" : ", one owner"
                let query = first
                await measure(name, count, "list \(what)\(scope)", runs: 20) { _ in _ = try await index.list(query) }
                // A search refused as too broad (``TextSearch/sortedMatchLimit``) has no next page.
                let next: DocumentCursor?
                do {
                    next = try await index.list(first).next
                } catch let refusal as PreviewError where refusal.code == .searchTooBroad {
                    next = nil
                }
                guard let next else { continue }
                first.after = next
                let nextPage = first
                await measure(name, count, "list \(what)\(scope), next page", runs: 20) { _ in _ = try await index.list(nextPage) }
            }
        }
        await measure(name, count, "upload commit (blob row, document, job)", runs: 50) { run in
            let hash = BlobHash.of(Data("index-scale upload \(run)".utf8))
            _ = try await backend.queue.enqueue(
                Document(
                    id: UUID().uuidString.lowercased(), owner: "owner-7", type: "resume", title: "upload \(run)", filename: "u.pdf", sha256: hash,
                    kind: .pdf, mime: "application/pdf", size: 1000, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date()))
        }
    }

    /// Every sort, and every filter with the default sort (newest first); 50 a page.
    static let listings: [(String, DocumentQuery)] =
        DocumentQuery.Sort.allCases.map { ("sort=\($0.rawValue)", DocumentQuery(sort: $0)) } + [
            ("type=resume", DocumentQuery(type: "resume")), ("kind=pdf", DocumentQuery(kind: "pdf")),
            ("status=failed", DocumentQuery(status: .failed)),
            ("shared=true", DocumentQuery(shared: true)), ("shared=false", DocumentQuery(shared: false)),
            ("q=title 12 (a common title)", DocumentQuery(containing: "title 12")),
            ("q=nobody's (a title nobody has)", DocumentQuery(containing: "nobody's")),
            ("q=title 12, oldest first (its matches far along the order)", DocumentQuery(containing: "title 12", sort: .oldest)),
            ("q=title 12, by title", DocumentQuery(containing: "title 12", sort: .title)),
            ("q=title 12, by type", DocumentQuery(containing: "title 12", sort: .type)),
            ("q=title 12, most shared first", DocumentQuery(containing: "title 12", sort: .mostShared))
        ]

    /// Median milliseconds of `runs` calls; a call refused with a ``PreviewError`` whose code is
    /// `search_too_broad` is timed and reported as refused.
    static func measure(_ backend: String, _ count: Int, _ what: String, runs: Int, _ body: @Sendable (Int) async throws -> Void) async {
        var times: [Double] = []
        var refused: String?
        do {
            for run in 0..<runs {
                let start = ContinuousClock.now
                do {
                    try await body(run)
                } catch let error as PreviewError where error.code == .searchTooBroad {
                    refused = error.code.rawValue
                }
                times.append(ScaleRun.seconds(since: start) * 1000)
            }
        } catch {
            ScaleRun.report(["backend": backend, "documents": count, "measure": what, "error": "\(error)"])
            return
        }
        times.sort()
        var row: [String: Any] = ["backend": backend, "documents": count, "measure": what, "median_ms": times[times.count / 2], "runs": runs]
        if let refused { row["refused"] = refused }
        ScaleRun.report(row)
    }

    /// Rows for document `i` of `count` (SQL expressions over `i`): an owner for every 100, so that the
    /// store grows by owners and one owner's listing is measured on an owner of the same size at
    /// every size; each owner with five types and kinds.
    static func owner(_ count: Int) -> String {
        "'owner-' || (i % \(owners(count)))"
    }

    static func owners(_ count: Int) -> Int {
        max(1, count / 100)
    }

    static func types(_ count: Int) -> String {
        "CASE (i / \(owners(count))) % 5 WHEN 0 THEN 'resume' WHEN 1 THEN 'transcript' WHEN 2 THEN 'highlight_video' WHEN 3 THEN 'stats' ELSE '' END"
    }

    static let status = "CASE i % 53 WHEN 7 THEN 'failed' ELSE 'ready' END"
    static let kinds = "CASE (i / 3) % 5 WHEN 0 THEN 'pdf' WHEN 1 THEN 'mp4' WHEN 2 THEN 'jpeg' WHEN 3 THEN 'docx' ELSE 'webp' END"

    static func sqliteFill(_ count: Int) -> [String] {
        let series = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))"
        let hash = "printf('%064d', i)", thumb = "printf('%064d', i + 100000000)"
        return [
            "\(series) INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(hash), 1000 + i % 100000, 'application/octet-stream', "
                + "datetime('now') FROM n",
            "\(series) INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(thumb), 20000 + i % 5000, 'image/webp', datetime('now') FROM n",
            """
            \(series) INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, version,
                                             preview_status, created_at)
            SELECT 'doc-' || i, \(owner(count)), \(types(count)), 'title ' || i, 'title ' || i, 'title ' || i || char(10) || char(10) || 'file-' || i,
                   'file-' || i, \(hash), \(kinds), 'application/octet-stream',
                   1000 + i % 100000, 1, \(status), datetime('now', '-' || i || ' seconds') FROM n
            """,
            """
            \(series) INSERT INTO shares (id, token_sha256, document_id, label, allow_download, created_at)
            SELECT 'share-' || i, 'token-' || i, 'doc-' || i, 'school', 1, datetime('now') FROM n WHERE i % 97 = 0
            """,
            """
            \(series) INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at, \
            on_demand, used_at)
            SELECT 'thumb-' || i, \(hash), 'render', 'w512', 'bench', \(thumb), 512, 512, datetime('now'), 0, datetime('now') FROM n
            """
        ]
    }

    /// In statements of 2,000 documents, each its own transaction: the counters' rows are updated by
    /// every document, and PostgreSQL keeps each update's row version until the transaction ends.
    static func postgresFill(_ count: Int) -> [String] {
        let hash = "lpad(i::text, 64, '0')", thumb = "lpad((i + 100000000)::text, 64, '0')"
        var statements: [String] = []
        for first in stride(from: 1, through: count, by: 2000) {
            let series = "FROM generate_series(\(first), \(min(count, first + 1999))) AS n(i)"
            statements += [
                "INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(hash), 1000 + i % 100000, 'application/octet-stream', now() \(series)",
                "INSERT INTO blobs (sha256, size, mime, created_at) SELECT \(thumb), 20000 + i % 5000, 'image/webp', now() \(series)",
                """
                INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, version,
                                       preview_status, created_at)
                SELECT 'doc-' || i, \(owner(count)), \(types(count)), 'title ' || i, 'title ' || i, 'title ' || i || chr(10) || chr(10) || 'file-' \
                || i,
                       'file-' || i, \(hash), \(kinds), 'application/octet-stream',
                       1000 + i % 100000, 1, \(status), now() - i * interval '1 second' \(series)
                """,
                """
                INSERT INTO shares (id, token_sha256, document_id, label, allow_download, created_at)
                SELECT 'share-' || i, 'token-' || i, 'doc-' || i, 'school', true, now() \(series) WHERE i % 97 = 0
                """,
                """
                INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at, on_demand, \
                used_at)
                SELECT 'thumb-' || i, \(hash), 'render', 'w512', 'bench', \(thumb), 512, 512, now(), false, now() \(series)
                """
            ]
        }
        // Measured as a store in use, not one still writing its fill back (CHECKPOINT).
        return statements + ["VACUUM ANALYZE", "CHECKPOINT"]
    }
}

struct ScaleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
