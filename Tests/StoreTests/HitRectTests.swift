import PreviewCore
import PreviewRenderers
import PreviewStore
import PreviewTestSupport
import Testing

/// A hit that starts or ends inside a word is marked where its characters are, as Poppler's
/// `findText` marks it (from one character edge to another, one box a line), not over the whole
/// word: from the text layer's character edges, which the index keeps with the words.
@Suite struct HitRectTests {
    /// Helvetica's widths (its AFM, thousandths of the size): `LinesPDF` sets a line at 12 points from x = 72.
    static let widths: [Character: Double] = [
        "A": 667, "P": 667, ",": 278, " ": 278, "M": 833, "i": 222, "l": 222, "t": 278, "e": 556, "r": 333,
        "C": 722, "O": 778, "R": 722, "E": 667, "1": 556, "6": 556, "8": 556
    ]
    static let line = "AP, Milliliter CORE168"

    /// Where characters `range` of the line lie by the font's own widths: left and right, in points.
    static func span(_ range: Range<Int>) -> [Double] {
        let advance = { (characters: ArraySlice<Character>) in characters.reduce(72.0) { $0 + widths[$1]! * 12 / 1000 } }
        let characters = Array(line)
        return [advance(characters[..<range.lowerBound]), advance(characters[..<range.upperBound])]
    }

    /// The length two ranges share over the length they cover.
    static func overlap(_ first: [Double], _ second: [Double]) -> Double {
        max(0, min(first[1], second[1]) - max(first[0], second[0])) / (max(first[1], second[1]) - min(first[0], second[0]))
    }

    @Test func aHitInsideAWordIsMarkedWhereItsCharactersAre() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("line.pdf", LinesPDF.make([[Self.line]]))
        let read = try PDFRenderer().text(pdf.path, page: 1)
        let kept = PageText(page: 1, width: read.width, height: read.height, words: try PageTexts.words(stored: PageTexts.storedWords(read.words)))
        for (query, characters) in [("ap", 0..<2), ("mill", 4..<8), ("re16", 17..<21), ("milliliter", 4..<14), ("ap, mill", 0..<8)] {
            let expected = Self.span(characters)
            for page in [read, kept] {
                let rects = try #require(TextHits(query: query)).hits(on: page, limit: 10).map(\.rects)
                #expect(rects.count == 1 && rects.first?.count == 1, "\(query): one hit, one box on its line")
                let rect = try #require(rects.first?.first)
                #expect(Self.overlap([rect[0], rect[2]], expected) >= 0.98, "\(query): \(rect) where its characters are \(expected)")
            }
        }
        // The whole word would not do: "AP," is a third wider than "AP".
        let word = try #require(read.words.first)
        #expect(Self.overlap([word.box[0], word.box[2]], Self.span(0..<2)) < 0.9)
    }

    /// Edges a hostile page gives (no number, or beyond any integer) are dropped, the word kept whole.
    @Test func edgesThatAreNoNumberAreDropped() throws {
        let words = [
            PageText.Word(text: "far", box: [0, 0, 30, 10], next: .space, edges: [1e300, 20]),
            PageText.Word(text: "nan", box: [40, 0, 70, 10], next: .space, edges: [.nan, 60]),
            PageText.Word(text: "ok", box: [80, 0, 100, 10], next: nil, edges: [90])
        ]
        let kept = try PageTexts.words(stored: PageTexts.storedWords(words))
        #expect(kept.map(\.text) == ["far", "nan", "ok"] && kept.map(\.edges) == [nil, nil, [90]])
    }
}
