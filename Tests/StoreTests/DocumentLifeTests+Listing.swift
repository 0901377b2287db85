import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
@testable import PreviewDomain
import PreviewPipeline
@testable import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// Listing and search over a store's documents: filters, order, pages, cursors.
extension DocumentLifeTests {
    @Test(arguments: TestBackend.available) func listingFiltersSortsAndPages(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        try await indexed.add(type: "resume", title: "Zebra CV")
        try await indexed.add(type: "transcript", title: "alpha transcript", status: .pending)
        try await indexed.add(type: "resume", title: "beta résumé", kind: .docx)
        try await indexed.add(type: "highlight_video", title: "Game film", kind: .mp4, status: .failed)
        try await indexed.add(owner: "ben", type: "resume", title: "Ben CV")
        let untyped = try await indexed.add(title: "untyped note", kind: .text, status: .noPreview)
        #expect(try await indexed.store.index.document(id: untyped.id)?.type == nil, "no type reads back as none")
        let replaced = try await indexed.add(type: "resume", title: "Zebra CV")  // a second version: listed instead of the first
        #expect(replaced.version == 2)

        let ana = try await indexed.all(DocumentQuery(owner: "ana", limit: 2))
        #expect(ana.count == 5, "latest versions only, one owner")
        #expect(ana.map(\.createdAt) == ana.map(\.createdAt).sorted(by: >), "newest first")
        #expect(ana.contains { $0.id == replaced.id })
        #expect(Set(ana.map(\.id)).count == ana.count, "no document twice across pages")

        #expect(try await indexed.all(DocumentQuery(owner: "ana", sort: .oldest, limit: 2)).map(\.id) == ana.reversed().map(\.id))
        #expect(
            try await indexed.all(DocumentQuery(owner: "ana", sort: .title, limit: 2)).map(\.title)
                == ["alpha transcript", "beta résumé", "Game film", "untyped note", "Zebra CV"], "titles in any case")
        #expect(
            try await indexed.all(DocumentQuery(owner: "ana", sort: .type, limit: 1)).map(\.title)
                == ["untyped note", "Game film", "beta résumé", "Zebra CV", "alpha transcript"], "type, then title")

        #expect(try await indexed.all(DocumentQuery(type: "resume")).map(\.title).sorted() == ["Ben CV", "Zebra CV", "beta résumé"])
        #expect(try await indexed.all(DocumentQuery(owner: "ana", type: "")).map(\.title) == ["untyped note"])
        #expect(try await indexed.all(DocumentQuery(kind: "mp4")).map(\.title) == ["Game film"])
        #expect(try await indexed.all(DocumentQuery(containing: "cV")).map(\.title).sorted() == ["Ben CV", "Zebra CV"])
        #expect(
            try await indexed.all(DocumentQuery(containing: "RÉSUMÉ")).map(\.title) == ["beta résumé"],
            "titles fold the same on both backends, beyond ASCII")
        #expect(try await indexed.all(DocumentQuery(status: .failed)).map(\.title) == ["Game film"])
        #expect(try await indexed.all(DocumentQuery(owner: "ana", containing: "%")).isEmpty, "search text is text, not a pattern")
        #expect(DocumentCursor(token: "not a cursor", sort: .newest) == nil)
        let titleCursor = try await #require(try indexed.store.index.list(DocumentQuery(sort: .title, limit: 1)).next)
        #expect(DocumentCursor(token: titleCursor.token, sort: .newest) == nil, "a cursor is for the order it was made in")
    }

    /// A text search finds the same documents, in the same order and pages, whether it walks the
    /// order's index (whole, or its start) or looks the text up in the search index (``TextSearch``),
    /// and what a title or file name holds is matched as text: case and accents folded, quotes and
    /// wildcards literal. Relabelled and deleted versions leave the search index with their rows.
    @Test(arguments: TestBackend.available) func aTextSearchFindsTheSameEitherWay(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        let titles = [
            "Junior Report", "report card", "REPORTS 2026", "Résumé final", "resume draft", "Say \"hi\" there",
            "50% done", "50 percent", "x_y notes", "xay notes", "back\\slash", "Reporter's notebook"
        ]
        for (number, title) in titles.enumerated() {
            try await indexed.add(owner: number % 3 == 0 ? "ben" : "ana", type: number % 2 == 0 ? "resume" : nil, title: title)
        }
        try await indexed.add(owner: "ana", title: "report card")  // a second version: one document still
        let relabelled = try await indexed.add(owner: "ana", title: "old report")
        _ = try await indexed.store.index.relabel(documentID: relabelled.id, to: Relabelling(title: "new summary", type: nil))
        let deleted = try await indexed.add(owner: "ana", title: "gone report")
        _ = try await indexed.store.index.delete(documentID: deleted.id, version: nil)

        let listed = try await indexed.all(DocumentQuery(limit: 200))
        for text in ["report", "RÉSUM", "\"hi\"", "50%", "x_y", "\\sl", "summary", "old report", "gone", "nobody's"] {
            for sort in DocumentQuery.Sort.allCases {
                for owner in [nil, "ana"] {
                    let query = DocumentQuery(owner: owner, containing: text, sort: sort, limit: 2)
                    let walked = try await indexed.all(query, search: .walk)
                    let expected = try await indexed.all(DocumentQuery(owner: owner, sort: sort, limit: 200))
                        .filter { document in
                            [document.title, document.description, document.filename].contains {
                                DocumentLabels.titleKey($0).contains(DocumentLabels.titleKey(text))
                            }
                        }
                    #expect(walked.map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): walked")
                    await #expect(
                        try indexed.all(query, search: .lookUp).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): looked up")
                    await #expect(try indexed.all(query).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): chosen")
                    // The start of an order this short is all of it.
                    await #expect(
                        try indexed.all(query, search: .walkStart).map(\.id) == expected.map(\.id), "\(text), \(sort), \(owner ?? "all"): start")
                    if TextSearch.indexHolds(sort) {
                        await #expect(
                            try indexed.all(query, search: .readInOrder).map(\.id) == expected.map(\.id),
                            "\(text), \(sort), \(owner ?? "all"): in the search index's order")
                    }
                }
            }
        }
        #expect(
            try await indexed.all(DocumentQuery(containing: "report", limit: 200)).count == 5,
            "four titles, and the relabelled one's file name: \(listed.map(\.title))")
        #expect(try await indexed.all(DocumentQuery(containing: "new summary")).map(\.id) == [relabelled.id])
    }

    /// A store-wide search newest or oldest first reads the search index in the creation order
    /// (``TextSearch/readInOrder``: SQLite's rowids, PostgreSQL's postings): versions created in one
    /// second, at one instant, added out of their creation order, replaced by a later version or
    /// relabelled page exactly as the order's walk pages them, whether a page ends inside a second
    /// or at its edge.
    @Test(arguments: TestBackend.available) func aSearchInCreationOrderPagesAsTheWalkDoes(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        // Seconds after `start`, in the order they are added: four in one second (two at one instant),
        // then the next second, a later one and an older one.
        let offsets: [TimeInterval] = [7, 0.25, 3600.5, 0, 7.001, 0.999, 86_400, 1, 0.25, 3600, -30, 1.5, 7]
        var added: [Document] = []
        for (number, offset) in offsets.enumerated() {
            let title = number % 4 == 2 ? "notes \(number)" : "report \(number)"
            added.append(try await indexed.add(owner: number % 2 == 0 ? "ana" : "ben", title: title, createdAt: start + offset))
        }
        // A later version of one, created in the busiest second; another relabelled out of the search and one into it.
        try await indexed.add(owner: added[4].owner, title: added[4].title, createdAt: start + 0.5)
        _ = try await indexed.store.index.relabel(documentID: added[0].id, to: Relabelling(title: "summary", type: nil))
        _ = try await indexed.store.index.relabel(documentID: added[2].id, to: Relabelling(title: "report again", type: nil))
        for sort in [DocumentQuery.Sort.newest, .oldest] {
            for limit in 1...5 {
                let query = DocumentQuery(containing: "report", sort: sort, limit: limit)
                let walked = try await indexed.all(query, search: .walk)
                #expect(walked.count == 11, "ten and the one relabelled into it (the other keeps its file name): \(walked.map(\.title))")
                await #expect(try indexed.all(query, search: .readInOrder).map(\.id) == walked.map(\.id), "\(sort), \(limit) a page")
                await #expect(try indexed.all(query).map(\.id) == walked.map(\.id), "\(sort), \(limit) a page: chosen")
            }
            // A cursor is the client's to send: one whose time is no time (nor a number that fits)
            // still says which rows follow it, and fails no statement.
            for time in ["zzzz", "0000", "2026-13-45 99:99:99", "", "99999999999999999999"] {
                let query = DocumentQuery(containing: "report", sort: sort, limit: 3, after: DocumentCursor(sort: sort, keys: [time, "m"]))
                let walked = try await indexed.all(query, search: .walk)
                await #expect(try indexed.all(query, search: .readInOrder).map(\.id) == walked.map(\.id), "\(sort) after \(time)")
            }
        }
        _ = try await indexed.all(DocumentQuery(sort: .mostShared, after: DocumentCursor(sort: .mostShared, keys: ["many", "m"])))
    }

    /// Pages read while others upload: every document that was there throughout appears exactly once.
    @Test(arguments: TestBackend.available) func aCursorHoldsAcrossConcurrentInserts(backend: TestBackend) async throws {
        let indexed = try await Indexed(backend)
        defer { indexed.folder.remove() }
        var present: [Document] = []
        for number in 0..<9 { present.append(try await indexed.add(title: "doc \(number)")) }
        for sort in DocumentQuery.Sort.allCases {
            var query = DocumentQuery(owner: "ana", sort: sort, limit: 2)
            var seen: [String] = []
            while true {
                let page = try await indexed.store.index.list(query)
                seen += page.documents.map(\.id)
                try await indexed.add(title: "new \(sort) \(seen.count)")  // lands before or after the cursor, depending on the order
                guard let next = page.next else { break }
                query.after = next
            }
            for document in present {
                #expect(seen.filter { $0 == document.id }.count == 1, "\(sort): \(document.title) once")
            }
            #expect(Set(seen).count == seen.count, "\(sort): nothing repeated")
        }
    }
}
