import Foundation
import GRDB
import Logging
import PostgresNIO
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDomain
@testable import PreviewPostgres
@testable import PreviewStore
import PreviewTestSupport
import Testing

/// How a title search chooses its way (``TextSearch``).
@Suite struct TextSearchChoiceTests {
    @Test(.blocking) func fewMatchesAreLookedUpAndManyWalked() {
        #expect(TextSearch.choosing(matches: 0) == .lookUp)
        #expect(TextSearch.choosing(matches: TextSearch.matchLimit - 1) == .lookUp)
        #expect(TextSearch.choosing(matches: TextSearch.matchLimit) == .walkStart, "the count stops at the limit")
    }

    /// The ways asked for and the one whose page was returned, when a walk of the order's start
    /// fills the page or not, the order has `candidates` rows and the search index `matched` matches
    /// (`sort` newest or oldest: a reading in order that is cut or not).
    func page(
        startFills: Bool, candidates: Int = 1_000_000, matched: Int = TextSearch.matchLimit, sort: DocumentQuery.Sort = .title,
        cut: Bool = false
    ) async throws -> (asked: [TextSearch], returned: TextSearch) {
        var asked: [TextSearch] = []
        let page = try await TextSearch.page(
            for: DocumentQuery(containing: "report", sort: sort),
            page: { search in
                asked.append(search)
                if search == .readInOrder, cut { throw TextSearch.ReadingCut() }
                // The page names the way it was made by: its one document's version is its place in `asked`.
                let marker = Document(
                    id: "p", owner: "", type: nil, title: "t", filename: "f", sha256: BlobHash.of(Data()), kind: .pdf,
                    mime: "application/pdf", size: 0, facts: MediaFacts(), version: asked.count, previewStatus: .ready,
                    createdAt: Date())
                let full = search != .walkStart || startFills
                return DocumentPage(documents: [marker], next: full ? DocumentCursor(sort: .newest, keys: ["1", "1"]) : nil)
            }, matches: { _, limit in min(matched, limit) }, candidates: { limit in min(candidates, limit + 1) })
        return (asked, asked[try #require(page.documents.first).version - 1])
    }

    @Test func aStartThatFillsThePageIsThePage() async throws {
        let (asked, returned) = try await page(startFills: true)
        #expect(asked == [.walkStart] && returned == .walkStart)
    }

    @Test func aStartThatDoesNotFillThePageLeavesItToTheSearchIndex() async throws {
        let (asked, returned) = try await page(startFills: false)
        #expect(asked == [.walkStart, .lookUp] && returned == .lookUp)
    }

    /// An order of at most a thousand rows (one owner's documents) is walked whole, without asking
    /// the index.
    @Test func aShortOrderIsWalkedWhole() async {
        var counted = 0
        let count = { (_: String, _: Int) -> Int in
            counted += 1
            return 0
        }
        await #expect(
            TextSearch.way(for: DocumentQuery(containing: "report", sort: .title), matches: count, candidates: { _ in TextSearch.matchLimit })
                == .walk)
        await #expect(
            TextSearch.way(for: DocumentQuery(containing: "report", sort: .title), matches: count, candidates: { _ in TextSearch.matchLimit + 1 })
                == .lookUp)
        #expect(counted == 1, "the index is asked only for the longer order")
    }

    /// Where the search index holds the order (newest or oldest first), a search reads its
    /// matches there in order, store-wide or one owner's, without counting anything.
    @Test func anOrderTheSearchIndexHoldsIsReadThere() async {
        var counted = 0
        let count = { (_: String, _: Int) -> Int in
            counted += 1
            return TextSearch.matchLimit
        }
        let candidates = { (limit: Int) -> Int in
            counted += 1
            return limit + 1
        }
        for owner in [nil, "ana"] {
            #expect(
                await TextSearch.way(
                    for: DocumentQuery(owner: owner, containing: "report", sort: .oldest), matches: count,
                    candidates: candidates) == .readInOrder)
        }
        #expect(
            await TextSearch.way(
                for: DocumentQuery(owner: "ana", containing: "report", sort: .title), matches: count,
                candidates: candidates) == .walkStart)
        #expect(counted == 2, "only the search in an order the index does not hold counts")
        #expect(TextSearch.indexHolds(.newest) && TextSearch.indexHolds(.oldest))
        #expect(!TextSearch.indexHolds(.title) && !TextSearch.indexHolds(.type) && !TextSearch.indexHolds(.mostShared))
    }

    /// An owner is looked up as one trigram of its own (``TextSearch/ownerToken(_:)``), the same
    /// for the same name, other for another, whatever its length.
    @Test func anOwnerIsOneTrigram() {
        let owners = ["ana", "ben", "a", "", "owner-7", "owner-70", "Ana", "\"quoted\"", String(repeating: "long ", count: 400)]
        let tokens = owners.map(TextSearch.ownerToken)
        #expect(tokens.allSatisfy { $0.unicodeScalars.count == 3 && $0.unicodeScalars.allSatisfy { (0xE000...0xF8FF).contains($0.value) } })
        #expect(Set(tokens).count == owners.count && TextSearch.ownerToken("ana") == tokens[0])
        #expect(TextSearch.labelQuery("title 12") == "search_key : \"title 12\"")
        #expect(TextSearch.labelQuery("a \"b\"", owner: "ana") == "owner_key : \"\(tokens[0])\" AND search_key : \"a \"\"b\"\"\"")
    }

    /// A walk of the order's start that read every candidate: its short page is the page.
    @Test func aStartThatReadEveryCandidateIsThePage() async throws {
        #expect(try await page(startFills: false, candidates: TextSearch.walkedRows) == ([.walkStart], .walkStart))
        #expect(try await page(startFills: false, candidates: TextSearch.walkedRows + 1) == ([.walkStart, .lookUp], .lookUp))
    }

    /// Matches that lie beyond the order's start are read and ordered when there are at most
    /// ``TextSearch/sortedMatchLimit``; more are refused before any is read, in any order.
    @Test func tooManyMatchesToOrderAreRefused() async throws {
        #expect(try await page(startFills: false, matched: TextSearch.sortedMatchLimit) == ([.walkStart, .lookUp], .lookUp))
        #expect(try await page(startFills: false, sort: .oldest, cut: true) == ([.readInOrder, .lookUp], .lookUp))
        #expect(try await page(startFills: true, matched: .max) == ([.walkStart], .walkStart), "a full start is the page, however many match")
        #expect(try await page(startFills: false, sort: .newest, cut: false) == ([.readInOrder], .readInOrder))
        for sort in [DocumentQuery.Sort.title, .mostShared, .oldest] {
            var asked: [TextSearch] = []
            let refusal = await #expect(throws: PreviewError.self) {
                try await TextSearch.page(
                    for: DocumentQuery(containing: "Report", sort: sort),
                    page: { search in
                        asked.append(search)
                        if search == .readInOrder { throw TextSearch.ReadingCut() }
                        return DocumentPage(documents: [], next: nil)
                    }, matches: { _, limit in min(TextSearch.sortedMatchLimit + 1, limit) }, candidates: { $0 + 1 })
            }
            #expect(refusal?.code == .searchTooBroad && refusal?.code.httpStatus == 422, "\(sort)")
            #expect(refusal?.message.hasPrefix("More than 10,000 documents hold \u{201C}Report\u{201D}") == true, "\(String(describing: refusal))")
            #expect(
                refusal?.message.contains("sort by newest") == !TextSearch.indexHolds(sort),
                "the advice fits the order: \(String(describing: refusal))")
            #expect(!asked.contains(.lookUp) && asked.count == 1, "\(sort): \(asked)")
        }
    }

    @Test func textWithoutATrigramIsWalked() async {
        var counted: [String] = []
        let count = { (key: String, _: Int) -> Int in
            counted.append(key)
            return 0
        }
        let many = { (limit: Int) in limit + 1 }
        #expect(await TextSearch.way(for: DocumentQuery(containing: "CV"), matches: count, candidates: many) == .walk)
        #expect(await TextSearch.way(for: DocumentQuery(), matches: count, candidates: many) == .walk)
        #expect(await TextSearch.way(for: DocumentQuery(containing: "Résumé", sort: .title), matches: count, candidates: many) == .lookUp)
        #expect(counted == ["résumé"], "the folded key is counted, only when it has a trigram")
        #expect(!TextSearch.isIndexable("cv") && !TextSearch.isIndexable(""))
        #expect(TextSearch.isIndexable("cv ") && TextSearch.isIndexable(DocumentLabels.titleKey("RÉS")), "three characters, whatever their bytes")
    }
}
