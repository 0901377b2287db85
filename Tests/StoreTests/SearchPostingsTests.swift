import Foundation
import Logging
import PostgresNIO
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDomain
@testable import PreviewPostgres
@testable import PreviewStore
import Testing

/// PostgreSQL's search postings (``SearchPostings``): kept by triggers as versions come, change
/// and go; numbered as a query's trigrams are; and a walk cut at its step limit leaves the page to
/// the trigram index.
@Suite(.enabled(if: TestBackend.available.contains(.postgres))) struct SearchPostingsTests {
    typealias Indexed = DocumentLifeTests.Indexed

    /// After versions are added, replaced, relabelled and deleted, the postings are exactly those
    /// of the latest versions' search keys and owners.
    @Test func postingsFollowTheLatestVersions() async throws {
        let indexed = try await Indexed(.postgres)
        defer { indexed.folder.remove() }
        let index = try #require(indexed.store.index as? PostgresIndex)
        let first = try await indexed.add(owner: "ana", title: "Junior report")
        try await indexed.add(owner: "ana", title: "Junior report")  // a second version takes the first's place
        let renamed = try await indexed.add(owner: "ben", title: "Stats sheet")
        _ = try await index.relabel(documentID: renamed.id, to: Relabelling(title: "Season stats", type: nil))
        let gone = try await indexed.add(owner: "ben", title: "Draft")
        let older = try await indexed.add(owner: "cy", title: "Letter")
        try await indexed.add(owner: "cy", title: "Letter")
        _ = try await index.delete(documentID: gone.id, version: nil)
        _ = try await index.delete(documentID: older.id, version: 2)  // the first version is the latest again
        _ = try await index.relabel(documentID: first.id, to: Relabelling(title: "Junior report", type: nil, description: "Varsity, 2026"))

        #expect(try await Self.postings(in: index.connections) > 40)
        #expect(try await Self.strayPostings(in: index.connections) == 0)
    }

    /// A store indexed before the postings gets them from its latest versions, and its searches
    /// newest and oldest first read them.
    @Test func versionsIndexedBeforeGetTheirPostings() async throws {
        let address = try await #require(try TestBackend.postgres.freshDatabase())
        let connections = try await PostgresConnections(url: address, size: 1, logger: Logger(label: "test"))
        try await PostgresSchema.migrate(connections, upTo: "v22-page-search")
        let rows = [
            ("d1", "ana", "Report", 1, 100), ("d2", "ana", "Report", 2, 300), ("d3", "ben", "Report card", 1, 200), ("d4", "ben", "Notes", 1, 400)
        ]
        for (id, owner, title, version, second) in rows {
            let hash = BlobHash.of(Data(id.utf8)).hex
            try await connections.query("INSERT INTO blobs (sha256, size, mime, created_at) VALUES (\(hash), 10, 'application/pdf', now())")
            try await connections.query(
                """
                INSERT INTO documents (id, owner, type, title, title_key, search_key, filename, sha256, kind, mime, size, version,
                                       preview_status, created_at)
                VALUES (\(id), \(owner), '', \(title), \(title.lowercased()), \(title.lowercased() + "\n\nr.pdf"), 'r.pdf', \(hash), 'pdf',
                        'application/pdf', 10, \(version), 'ready', to_timestamp(\(second)))
                """)
        }
        let index = try await PostgresIndex(connections: connections)
        #expect(try await Self.postings(in: connections) > 0)
        #expect(try await Self.strayPostings(in: connections) == 0)
        let newest = try await index.list(DocumentQuery(containing: "report", limit: 10), search: .readInOrder)
        #expect(newest.documents.map(\.id) == ["d2", "d3"], "the latest versions")
        let oldest = try await index.list(DocumentQuery(owner: "ben", containing: "r.pdf", sort: .oldest, limit: 10), search: .readInOrder)
        #expect(oldest.documents.map(\.id) == ["d3", "d4"])
    }

    /// How many postings there are.
    static func postings(in connections: PostgresConnections) async throws -> Int {
        try await connections.query("SELECT count(*) AS n FROM search_postings").first?["n"].decode(Int.self) ?? 0
    }

    /// How many postings differ from those of the latest versions' search keys and owners, either way.
    static func strayPostings(in connections: PostgresConnections) async throws -> Int {
        let kept = "SELECT gram, created_at, id FROM documents, unnest(search_grams(search_key, owner)) AS gram WHERE latest"
        let rows = try await connections.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT count(*) AS n FROM ((TABLE search_postings EXCEPT ALL \(kept)) UNION ALL (\(kept) EXCEPT ALL TABLE search_postings)) AS d
                    """))
        return try rows.first?["n"].decode(Int.self) ?? -1
    }

    /// A query's trigrams are numbered as the postings number a search key's, whatever its script.
    @Test func aQuerysTrigramsAreTheIndexs() async throws {
        let indexed = try await Indexed(.postgres)
        defer { indexed.folder.remove() }
        let index = try #require(indexed.store.index as? PostgresIndex)
        for key in ["title 12", "résumé ü", "日本語のテキスト", "team 🏈 film", "ab", "aaaa"] {
            let rows = try await index.connections.query("SELECT gram FROM unnest(search_grams(\(key), 'x')) AS gram WHERE gram >= 0")
            let stored = Set(try rows.map { try $0["gram"].decode(Int64.self) })
            #expect(Set(TextSearch.trigrams(key, limit: .max)) == stored, "\(key)")
        }
        let long = TextSearch.trigrams("a text with rather more than eight trigrams")
        #expect(long.count == 8 && Set(long).count == 8)
    }

    /// A walk that takes its every step before the page is full is cut (``TextSearch/ReadingCut``),
    /// and the page is looked up instead: the same pages as the walk of the order.
    @Test func aCutWalkLeavesThePageToTheTrigramIndex() async throws {
        let indexed = try await Indexed(.postgres)
        defer { indexed.folder.remove() }
        let index = try #require(indexed.store.index as? PostgresIndex)
        for number in 0..<12 {
            try await indexed.add(owner: number % 2 == 0 ? "ana" : "ben", title: number % 3 == 0 ? "report \(number)" : "notes \(number)")
        }
        for sort in [DocumentQuery.Sort.newest, .oldest] {
            let query = DocumentQuery(containing: "report", sort: sort, limit: 3)
            await #expect(throws: TextSearch.ReadingCut.self) { try await index.list(query, search: .readInOrder, steps: 2) }
            let walked = try await index.list(query, search: .walk)
            #expect(walked.documents.count == 3 && walked.next != nil)
            for page in [try await index.list(query, search: nil, steps: 2), try await index.list(query, search: .readInOrder)] {
                #expect(page.documents.map(\.id) == walked.documents.map(\.id) && page.next == walked.next, "\(sort)")
            }
        }
    }
}
