import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewServer
import PreviewStore
import PreviewTestSupport
import Testing

/// `GET /v1/search`, a search of every document's pages and labels, on both backends: diacritics and
/// case folded, a text inside a word, ranked with the best hit of each document; only current
/// versions (a new version's text replaces the old one's, a restore brings it back), nothing of a
/// deleted document, and after `gc` no row left in the search index. Bounded: a short text is
/// refused, an owner's searches are paced.
@Suite struct StoreSearchTests {
    static func upload(
        _ client: any TestClientProtocol, _ pages: [[String]], owner: String = "ana", title: String,
        type: String = "transcript"
    ) async throws -> String {
        let body = ByteBuffer(bytes: LinesPDF.make(pages))
        let uri = "/v1/documents?filename=\(title).pdf&owner=\(owner)&title=\(title)&type=\(type)"
        return try await client.execute(uri: uri, method: .post, body: body) { response in
            #expect(response.status == .accepted)
            return try #require(try json(response)["document_id"] as? String)
        }
    }

    /// The results of `query`: each document's id, its best hit's page and match, its occurrences.
    static func search(_ client: any TestClientProtocol, _ query: String) async throws -> (ids: [String], body: [String: Any]) {
        try await client.execute(uri: "/v1/search?" + query, method: .get) { response in
            #expect(response.status == .ok, "\(query): \(String(buffer: response.body))")
            let body = try json(response)
            let results = body["results"] as? [[String: Any]] ?? []
            return (results.compactMap { ($0["document"] as? [String: Any])?["document_id"] as? String }, body)
        }
    }

    static func hit(_ body: [String: Any], _ index: Int = 0) -> [String: Any]? {
        ((body["results"] as? [[String: Any]])?[index])?["hit"] as? [String: Any]
    }

    /// The rows of the pages' search index that name no page (SQLite keeps its own; PostgreSQL's is
    /// the table's), and FTS5's own check of it.
    static func searchIndexIsSound(_ index: any DocumentIndex) async throws -> Bool {
        guard index.dialect == .sqlite else { return true }
        return try await index.runPlan(serializing: nil) {
            .statement("INSERT INTO page_search (page_search) VALUES ('integrity-check')") { _ in
                .statement("SELECT COUNT(*) AS n FROM page_search WHERE page_search MATCH 'ology'") { counted in
                    .statement("SELECT COUNT(*) AS n FROM page_texts WHERE instr(search_text, 'ology') > 0") { rows in
                        .done(counted.first?.integer("n") == rows.first?.integer("n"))
                    }
                }
            }
        }
    }

    @Test(arguments: TestBackend.available) func documentsFoundByTheirWords(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let transcript = try await Self.upload(
                client,
                [
                    ["Official transcript", "AP Biology 5, École Normale"],
                    ["Combine score CORE168", "AP Biology again"]
                ], title: "Transcript")
            let letter = try await Self.upload(
                client, [["Letter of recommendation", "She led our AP biology lab."]], title: "Letter",
                type: "rec_letter")
            let other = try await Self.upload(client, [["AP Biology 4"]], owner: "ben", title: "Transcript")
            let photo = try await client.execute(
                uri: "/v1/documents?filename=lab.webp&owner=ana&title=AP%20Biology%20lab", method: .post,
                body: try sample("image.webp")
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()

            // Diacritics and case folded; the hit's page, words and boxes.
            let ecole = try await Self.search(client, "q=ECOLE")
            #expect(ecole.ids == [transcript])
            let found = try #require(Self.hit(ecole.body))
            #expect(found["page"] as? Int == 1 && (found["snippet"] as? [String: String])?["match"] == "École")
            let rects = try #require(found["rects"] as? [[Double]])
            #expect(rects.count == 1 && rects[0][0] > 120 && rects[0][1] > 85 && rects[0][3] < 115, "on the second line: \(rects)")
            // Inside a word.
            let infix = try await Self.search(client, "q=re16")
            #expect(infix.ids == [transcript] && Self.hit(infix.body)?["page"] as? Int == 2)
            #expect((Self.hit(infix.body)?["snippet"] as? [String: String])?["match"] == "CORE168")
            // Ranked: labels first, then by occurrences, then by id; every owner unless one is asked.
            let biology = try await Self.search(client, "q=ap%20biology")
            #expect(biology.ids == [photo, transcript] + [letter, other].sorted())
            let results = try #require(biology.body["results"] as? [[String: Any]])
            #expect(results[0]["in_labels"] as? Bool == true && results[0]["hit"] == nil)
            #expect(results[1]["occurrences"] as? Int == 2 && Self.hit(biology.body, 1)?["page"] as? Int == 1)
            #expect(biology.body["complete"] as? Bool == true && biology.body["next_cursor"] == nil)
            #expect(try await Self.search(client, "q=ap%20biology&owner=ana").ids == [photo, transcript, letter])
            #expect(try await Self.search(client, "q=ap%20biology&owner=ana&type=rec_letter").ids == [letter])
            // Pages of the ranking.
            let first = try await Self.search(client, "q=ap%20biology&limit=2")
            #expect(first.ids == [photo, transcript] && first.body["next_cursor"] as? String == "2")
            #expect(try await Self.search(client, "q=ap%20biology&limit=2&cursor=2").ids == [letter, other].sorted())
            #expect(try await Self.search(client, "q=chemistry").ids.isEmpty)

            // A new version's words replace the old one's; a restore brings them back.
            let second = try await Self.upload(
                client, [["Letter of recommendation", "A fine chemistry student."]], title: "Letter",
                type: "rec_letter")
            #expect(try await Self.search(client, "q=ap%20biology&owner=ana").ids == [photo, transcript], "not the old version")
            try await harness.drainQueue()
            #expect(try await Self.search(client, "q=chemistry").ids == [second])
            let restored = try await client.execute(uri: "/v1/documents/\(second)/restore?version=1", method: .post) {
                try #require(try json($0)["document_id"] as? String)
            }
            #expect(try await Self.search(client, "q=she%20led").ids == [restored], "its text was read already")
            #expect(try await Self.search(client, "q=chemistry").ids.isEmpty)

            // A deleted document is not found; its rows go with `gc`.
            try await client.execute(uri: "/v1/documents/\(transcript)", method: .delete) { #expect($0.status == .ok) }
            #expect(try await Self.search(client, "q=ecole").ids.isEmpty)
        }
        let rows = try await TextRouteTests.pageRows(harness.pipeline.store.index)
        _ = try await harness.pipeline.store.collectGarbage(grace: 0, dryRun: false, force: true, logger: Logger(label: "test"))
        #expect(try await TextRouteTests.pageRows(harness.pipeline.store.index) == rows - 2, "the deleted transcript's two pages")
        #expect(try await Self.searchIndexIsSound(harness.pipeline.store.index))
    }

    @Test func searchesAreBounded() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            // A control character, a NUL above all (it would end the search index's query), is refused
            // before anything is searched.
            for query in [
                "q=ab", "q=%20%20ab%20", "q=" + String(repeating: "a", count: 101), "q=abc&limit=51", "q=abc&cursor=0", "q=abc&cursor=x", "",
                "q=abcd%00", "q=ab%00cd", "q=abc%04def", "q=%C2%8Dabc"
            ] {
                try await client.execute(uri: "/v1/search?" + query, method: .get) { #expect($0.status == .badRequest, "\(query)") }
            }
            // An owner's searches are paced; another owner's are not held back by them.
            for _ in 0..<20 { _ = try await Self.search(client, "q=abc&owner=ana") }
            try await client.execute(uri: "/v1/search?q=abc&owner=ana", method: .get) { response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] == "1")
            }
            _ = try await Self.search(client, "q=abc&owner=ben")
            harness.clock.advance(by: .seconds(1))
            _ = try await Self.search(client, "q=abc&owner=ana")
        }
    }

    /// A read that runs past its time is stopped (SQLite by its progress handler, PostgreSQL by its
    /// statement timeout) and says so; the connection serves the next read.
    @Test(arguments: TestBackend.available) func readsStopAtTheirTimeout(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let index = try await backend.open(root: folder.url).store.index
        let endless: PortableSQL = """
            WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000000) SELECT COUNT(*) AS c FROM n
            """
        await #expect(throws: QueryTimedOut.self) {
            try await index.readPlan(timeout: .milliseconds(50)) { .rows(endless) }
        }
        let next = try await index.readPlan(timeout: .seconds(30)) { .statement("SELECT 1 AS one") { .done($0.first?.integer("one")) } }
        #expect(next == 1)
    }
}
