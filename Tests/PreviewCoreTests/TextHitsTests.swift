import Foundation
@testable import PreviewCore
import Testing

/// A text is found on a page whatever its case and accents, inside words and across them, with
/// the boxes of the words it covers and a few words around it.
@Suite struct TextHitsTests {
    /// A page of one line per entry, each word 10 points wide.
    static func page(_ lines: [String]) -> PageText {
        var words: [PageText.Word] = []
        for (row, line) in lines.enumerated() {
            let texts = line.split(separator: " ").map(String.init)
            for (column, text) in texts.enumerated() {
                let (x, y) = (Double(column) * 12, Double(row) * 14)
                words.append(PageText.Word(text: text, box: [x, y, x + 10, y + 12], next: column == texts.count - 1 ? .line : .space))
            }
        }
        return PageText(page: 2, width: 612, height: 792, words: words)
    }

    let transcript = page(["Lycée Jean-Moulin transcript", "AP Biology 5 CORE168 passed", "École d'été: AP biology again"])

    /// ASCII is folded without Foundation, to the same text Foundation folds it to.
    @Test func asciiIsFoldedAsFoundationFoldsIt() {
        let printable = String((0x20...0x7E).map { Character(UnicodeScalar(UInt8($0))) })
        for text in [printable, "CORE168", "AP Biology", "", "ÉCOLE", "Ｆｕｌｌ", "Straße"] {
            #expect(
                TextHits.fold(text) == text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil), "\(text)")
        }
    }

    @Test func caseAndAccentsDoNotMatter() throws {
        let hits = try #require(TextHits(query: "ecole")).hits(on: transcript, limit: 10)
        #expect(hits.map(\.snippet.match) == ["École"])
        #expect(hits.first?.rects == [[0, 28, 10, 40]] && hits.first?.page == 2)
        #expect(try #require(TextHits(query: "LYCEE")).hits(on: transcript, limit: 10).count == 1)
    }

    @Test func insideWordsAndAcrossThem() throws {
        let infix = try #require(TextHits(query: "RE16")).hits(on: transcript, limit: 10)
        #expect(infix.map(\.snippet.match) == ["CORE168"])
        let phrase = try #require(TextHits(query: "  ap   Biology ")).hits(on: transcript, limit: 10)
        #expect(phrase.map(\.snippet.match) == ["AP Biology", "AP biology"], "in reading order, the query's spaces folded")
        #expect(phrase.first?.rects == [[0, 14, 22, 26]], "one box around the words covered on a line")
        #expect(phrase.last?.snippet.before == "Biology 5 CORE168 passed École d'été:" && phrase.last?.snippet.after == "again")
    }

    /// A hit that starts or ends inside a word whose character edges are known is marked from edge
    /// to edge (a character folded to two, "ß" to "ss", is one); without edges, the whole word.
    @Test func insideAWordFromEdgeToEdge() throws {
        let page = PageText(
            page: 1, width: 100, height: 100,
            words: [
                PageText.Word(text: "CORE168", box: [0, 0, 70, 10], next: .space, edges: [10, 20, 30, 40, 50, 60]),
                PageText.Word(text: "Straße", box: [0, 20, 60, 30], next: .space, edges: [10, 20, 30, 40, 50]),
                PageText.Word(text: "AP", box: [0, 40, 20, 50], next: .space, edges: [10]),
                PageText.Word(text: "Biology,", box: [22, 40, 102, 50], next: .line)
            ])
        let rects = { (query: String) in try #require(TextHits(query: query)).hits(on: page, limit: 10).map(\.rects) }
        #expect(try rects("RE16") == [[[20, 0, 60, 10]]])
        #expect(try rects("CORE168") == [[[0, 0, 70, 10]]])
        #expect(try rects("asse") == [[[30, 20, 60, 30]]], "a, ß (two letters folded), e")
        #expect(try rects("p biol") == [[[10, 40, 102, 50]]], "a word without edges is marked whole, the line in one box")
    }

    /// A word hyphenated across a line is found whole, its two parts' boxes marked; a hyphen that
    /// does not end a hyphenated line is a character like another.
    @Test func aWordHyphenatedAcrossALine() throws {
        let page = PageText(
            page: 1, width: 100, height: 100,
            words: [
                PageText.Word(text: "issued", box: [0, 0, 10, 10], next: .space), PageText.Word(text: "to", box: [12, 0, 20, 10], next: .space),
                PageText.Word(text: "Arm-", box: [22, 0, 40, 10], next: .hyphen), PageText.Word(text: "strong", box: [0, 12, 30, 22], next: .space),
                PageText.Word(text: "well-", box: [32, 12, 50, 22], next: .space), PageText.Word(text: "known", box: [52, 12, 70, 22], next: nil)
            ])
        let whole = try #require(TextHits(query: "armstrong")).hits(on: page, limit: 10)
        #expect(whole.map(\.rects) == [[[22, 0, 40, 10], [0, 12, 30, 22]]] && whole.first?.snippet.match == "Arm- strong")
        #expect(TextHits.searchText(of: page.words) == "issued to armstrong well- known")
        #expect(try #require(TextHits(query: "well- known")).hits(on: page, limit: 10).count == 1)
    }

    @Test func boundedQueriesAndHits() throws {
        #expect(TextHits(query: " a ") == nil && TextHits(query: String(repeating: "a", count: 101)) == nil)
        #expect(try #require(TextHits(query: "AP")).hits(on: transcript, limit: 1).count == 1)
        #expect(try #require(TextHits(query: "chemistry")).hits(on: transcript, limit: 10).isEmpty)
    }
}
