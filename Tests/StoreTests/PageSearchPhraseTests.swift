@testable import PreviewStore
import Testing

/// PostgreSQL looks a text of several words up by its longest word (its trigrams are each word's
/// own): the word must be whole and hold a trigram; one word is looked up as it is.
@Suite struct PageSearchPhraseTests {
    @Test func theLongestWholeWord() {
        #expect(PageSearch.longestWord(of: "ap biology") == "biology")
        #expect(PageSearch.longestWord(of: "biology") == nil, "one word is the text itself")
        #expect(PageSearch.longestWord(of: "a b c") == nil, "no trigram")
        #expect(PageSearch.longestWord(of: "gpa 3.87") == "3.87")
    }

    @Test func aPhraseReadsAtMostItsBoundOfPages() {
        let query = PageSearch.Query(needle: "ap biology", labelKey: "ap biology", owner: nil, type: nil, readings: ["r"])
        let (text, values) = PageSearch.pageStatement(query, in: .postgres).rendered(in: .postgres)
        #expect(text.contains("LIKE $1") && values.first == .text("%biology%") && values.contains(.integer(Int64(PageSearch.phraseCandidates + 1))))
        #expect(text.contains("strpos(p.search_text, "), "the whole text tested in each page read")
    }
}
