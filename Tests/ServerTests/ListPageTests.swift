import Foundation
@testable import PreviewServer
@testable import PreviewWeb
import PreviewCore
import PreviewStore
import Testing

/// The owner's list page when a search is too broad to sort as asked (``TextSearch/tooBroad(_:sort:)``).
@Suite struct ListPageTests {
    /// The page lists the search newest first and says why, instead of answering an error.
    @Test func aSearchTooBroadToSortIsShownNewestFirstWithTheReason() async throws {
        var asked: [DocumentQuery.Sort] = []
        let query = DocumentQuery(owner: "ana", containing: "report", sort: .title, after: DocumentCursor(sort: .title, keys: ["a", "b"]))
        let (listed, page, notice) = try await ListPage.listing(query) { query in
            asked.append(query.sort)
            guard query.sort == .newest, query.after == nil else { throw TextSearch.tooBroad("report", sort: query.sort) }
            return DocumentPage(documents: [], next: nil)
        }
        #expect(asked == [.title, .newest] && listed.sort == .newest && listed.containing == "report" && listed.owner == "ana" && page.next == nil)
        #expect(notice?.hasSuffix("Shown newest first.") == true && notice?.contains("sort by title") == true, "\(notice ?? "")")

        let statistics = StorageStatistics(
            owner: "ana", documents: 0, versions: 0, byType: [:], byKind: [:], logicalBytes: 0, storedBytes: 0,
            previews: 0, previewBytes: 0)
        let html = PageTemplates.render(
            ListPage(query: listed, page: page, statistics: statistics, rules: .standard, session: nil, notice: notice), "list")
        #expect(html.contains("<p class=\"hint\" role=\"status\">More than") && html.contains("<option value=\"newest\" selected>"), "\(html)")
    }

    /// Any other failure, and a refusal newest first (nothing to fall back to), is the page's error.
    @Test func otherFailuresAreTheError() async throws {
        for (sort, error) in [(DocumentQuery.Sort.title, PreviewError(.unavailable, "down")), (.newest, TextSearch.tooBroad("report", sort: .newest))]
        {
            var calls = 0
            let failure = await #expect(throws: PreviewError.self) {
                _ = try await ListPage.listing(DocumentQuery(containing: "report", sort: sort)) { _ in
                    calls += 1
                    throw error
                }
            }
            #expect(failure?.code == error.code && calls == 1)
        }
    }
}
