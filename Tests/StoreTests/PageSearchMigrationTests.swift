import Foundation
import GRDB
import PreviewCore
@testable import PreviewDomain
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// A store whose pages' text was kept before the search index (one JSON object a word, no search
/// text) gets both from its rows: the same words read back, and the page found.
@Suite struct PageSearchMigrationTests {
    @Test func pagesKeptBeforeTheSearchIndexAreFound() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (source, result) = (BlobHash.of(Data("pdf".utf8)).hex, BlobHash.of(Data("text".utf8)).hex)
        let words = [
            PageText.Word(text: "AP", box: [72, 80, 90, 92], next: .space), PageText.Word(text: "Biology", box: [94, 80, 140, 92], next: .line),
            PageText.Word(text: "École", box: [72, 96, 110, 108], next: nil)
        ]
        let index = try await olderIndex(upTo: "v21-share-highlight", in: folder) { db in
            for hash in [source, result] {
                try db.execute(
                    sql: "INSERT INTO blobs (sha256, size, mime, created_at) VALUES (?, 10, 'application/pdf', '2026-01-01 00:00:00.000')",
                    arguments: [hash])
            }
            try db.execute(
                sql: """
                    INSERT INTO documents (id, owner, type, title, title_key, filename, sha256, kind, mime, size, version, preview_status, created_at)
                    VALUES ('d1', 'ana', '', 'Transcript', 'transcript', 't.pdf', ?, 'pdf', 'application/pdf', 10, 1, 'ready', \
                    '2026-01-01 00:00:00.000')
                    """, arguments: [source])
            try db.execute(
                sql: """
                    INSERT INTO derivatives (key, source_sha256, operation, parameters, renderer, result_sha256, width, height, created_at)
                    VALUES ('text-1', ?, 'text', 'text.json', 'reading', ?, 0, 0, '2026-01-01 00:00:00.000')
                    """, arguments: [source, result])
            try db.execute(
                sql: """
                    INSERT INTO page_texts (derivative, page, width, height, text, words, truncated) VALUES ('text-1', 1, 612, 792, 'AP Biology', \
                    ?, 0)
                    """, arguments: [String(decoding: try JSONEncoder().encode(words), as: UTF8.self)])
        }
        let read = try await PageTexts(database: index).pages(of: "text-1", words: true)
        #expect(read.first?.words?.words == words)
        let query = PageSearch.Query(needle: "ecole", labelKey: "ecole", owner: nil, type: nil, readings: ["reading"])
        let found = try await PageSearch(database: index).matches(query)
        #expect(found.matches.map(\.documentID) == ["d1"] && found.matches.first?.page == 1 && found.complete)
        let stored = try await index.readPlan(timeout: .seconds(30)) { .rows("SELECT words FROM page_texts") }
        #expect(stored.first?.text("words")?.hasPrefix("{") == true, "kept as columns now")
    }
}
