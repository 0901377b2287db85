import Foundation
import GRDB
import PreviewCore
@testable import PreviewDomain
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// A store indexed before the search index kept the creation order gets it from its rows: each
/// version's `search_order` counts within its second of creation, in the order's own order, and a
/// search newest or oldest first, store-wide or one owner's, reads them so (``TextSearch/readInOrder``).
@Suite struct SearchOrderMigrationTests {
    @Test func versionsIndexedBeforeAreReadInCreationOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Added out of their creation order; three in one second, two of them at one instant.
        let rows: [(id: String, created: String)] = [
            ("d4", "2026-01-01 00:00:09.000"), ("d2", "2026-01-01 00:00:05.500"),
            ("d1", "2026-01-01 00:00:05.500"), ("d5", "2026-01-02 00:00:00.000"),
            ("d3", "2026-01-01 00:00:05.900"), ("d0", "2025-12-31 23:59:59.999")
        ]
        let index = try await olderIndex(upTo: "v22-page-search", in: folder) { db in
            for (number, row) in rows.enumerated() {
                let hash = BlobHash.of(Data(row.id.utf8)).hex
                try db.execute(
                    sql: "INSERT INTO blobs (sha256, size, mime, created_at) VALUES (?, 10, 'application/pdf', ?)", arguments: [hash, row.created])
                try db.execute(
                    sql: """
                        INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, version, \
                        preview_status, created_at)
                        VALUES (?, 'ana', '', ?, ?, ?, 'r.pdf', ?, 'pdf', 'application/pdf', 10, 1, 'ready', ?)
                        """, arguments: [row.id, "Report \(number)", "report \(number)", "report \(number)\n\nr.pdf", hash, row.created])
            }
        }
        let placed = try index.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, search_order, CAST(strftime('%s', created_at) AS INTEGER) AS second FROM documents ORDER BY created_at, id")
        }
        #expect(placed.map { $0["id"] as String } == ["d0", "d1", "d2", "d3", "d4", "d5"])
        let orders = placed.map { $0["search_order"] as Int64 }
        #expect(zip(orders, orders.dropFirst()).allSatisfy { $0 < $1 }, "\(orders)")
        #expect(placed.allSatisfy { ($0["search_order"] as Int64) >> TextSearch.orderBits == $0["second"] as Int64 })
        // A version added later in a second of those: after them in its second, found in its place.
        let d6 = Document(
            id: "d6", owner: "ben", type: nil, title: "Report 6", filename: "r.pdf", sha256: BlobHash.of(Data("d6".utf8)), kind: .pdf,
            mime: "application/pdf", size: 10, facts: MediaFacts(), version: 0, previewStatus: .ready,
            createdAt: try #require(ISO8601DateFormatter().date(from: "2026-01-01T00:00:05Z")))
        _ = try await index.insertVersion(d6)
        let newest = try await index.list(DocumentQuery(containing: "report", limit: 10), search: .readInOrder)
        #expect(newest.documents.map(\.id) == ["d5", "d4", "d3", "d2", "d1", "d6", "d0"])
        let oldest = try await index.list(DocumentQuery(containing: "report", sort: .oldest, limit: 3), search: .readInOrder)
        let next = try await index.list(DocumentQuery(containing: "report", sort: .oldest, limit: 3, after: oldest.next), search: .readInOrder)
        #expect(oldest.documents.map(\.id) + next.documents.map(\.id) == ["d0", "d6", "d1", "d2", "d3", "d4"])
        let owned = try await index.list(DocumentQuery(owner: "ana", containing: "report", limit: 10), search: .readInOrder)
        #expect(owned.documents.map(\.id) == ["d5", "d4", "d3", "d2", "d1", "d0"], "the owners of versions indexed before are indexed too")
    }
}
