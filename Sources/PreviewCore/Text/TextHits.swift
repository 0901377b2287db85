import Foundation

/// Where a query's text occurs on a page: each occurrence with the words it covers, their boxes
/// and a snippet of the page around it. Case and diacritics do not matter ("ecole" finds "École"),
/// and the text may start or end inside a word ("RE16" finds "CORE168"), across the words of a line.
public struct TextHits: Sendable {
    /// One occurrence.
    package struct Hit: Sendable, Equatable, Encodable {
        package var page: Int
        /// The page's size as displayed, in points (what the boxes are within).
        package var width: Double
        package var height: Double
        /// One box a line it covers (left, top, right, bottom in points), around the words it covers
        /// there, as Poppler's `findText` marks a hit; where it starts or ends inside a word whose
        /// character edges are known, from or to the edge there.
        package var rects: [[Double]]
        package var snippet: Snippet
    }

    /// A few words of the page around an occurrence, the occurrence apart, so a client marks it as it likes.
    package struct Snippet: Sendable, Equatable, Encodable {
        package var before: String
        package var match: String
        package var after: String
    }

    /// The shortest and longest text searched for, in characters.
    package static let lengths = 2...100
    /// Words of context on each side of a snippet.
    static let contextWords = 6

    /// The shortest text a search of the whole store looks for: the search index holds the
    /// pages' text by trigram (``searchText(of:)``).
    package static let storeWideMinimum = 3
    /// The lengths of text a search of the whole store takes, in characters.
    package static var storeWideLengths: ClosedRange<Int> { storeWideMinimum...lengths.upperBound }

    /// The folded query: what a page's ``searchText(of:)`` holds where it occurs.
    package let needle: String
    /// The query as asked, trimmed, its spaces made single.
    package let text: String

    /// Nil when `query`, trimmed, is outside ``lengths`` or holds a control character (a NUL
    /// would end the search index's query early).
    public init?(query: String) {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.lengths.contains(trimmed.count) else { return nil }
        text = trimmed.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !DocumentLabels.hasControls(text) else { return nil }  // its tabs are spaces already
        needle = Self.fold(text)
    }

    /// What a text named `name` must be, said when it is not: of `lengths` characters (``lengths``
    /// unless said), none a control character.
    package static func requirement(_ name: String, lengths: ClosedRange<Int> = lengths) -> String {
        "\(name) must have \(lengths.lowerBound) to \(lengths.upperBound) characters and no control characters"
    }

    /// Case and diacritics folded away, as both the page and the query are compared. ASCII text,
    /// most words, is lowercased here: Foundation's folding costs microseconds a word, which a
    /// search's pages of hundreds of words add up.
    static func fold(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        }
        return String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// A page's words folded and joined by spaces, a word hyphenated across a line joined whole
    /// ("Arm-" and "strong" are "armstrong", as `pdftotext` joins them): what a query's ``needle`` is
    /// looked for in, on the page and in the store's search index alike.
    package static func searchText(of words: [PageText.Word]) -> String {
        folded(words).text
    }

    /// The folded words joined, and where each word lies in it.
    private static func folded(_ words: [PageText.Word]) -> (text: String, spans: [Range<String.Index>]) {
        var text = ""
        var spans: [Range<String.Index>] = []
        var joinsNext = false
        for word in words {
            if !text.isEmpty, !joinsNext { text += " " }
            let start = text.endIndex
            var folded = fold(word.text)
            joinsNext = word.next == .hyphen && (folded.last == "-" || folded.last == "\u{AD}")
            if joinsNext { folded.removeLast() }
            text += folded
            spans.append(start..<text.endIndex)
        }
        return (text, spans)
    }

    /// Every occurrence on `page`, in reading order, at most `limit`.
    package func hits(on page: PageText, limit: Int) -> [Hit] {
        guard limit > 0, !page.words.isEmpty else { return [] }
        let (haystack, spans) = Self.folded(page.words)
        var hits: [Hit] = []
        var from = haystack.startIndex
        while hits.count < limit, let found = haystack.range(of: needle, range: from..<haystack.endIndex) {
            let covered = spans.indices.filter { spans[$0].overlaps(found) }
            if let first = covered.first, let last = covered.last {
                var rects: [[Double]] = []
                for index in covered {
                    let span = spans[index]
                    let from = haystack.distance(from: span.lowerBound, to: max(span.lowerBound, found.lowerBound))
                    let to = haystack.distance(from: span.lowerBound, to: min(span.upperBound, found.upperBound))
                    let box = Self.box(of: page.words[index], characters: from..<to)
                    if index > first, let last = rects.last, Self.sameLine(page.words[index - 1], last, box) {
                        rects[rects.count - 1] = [min(last[0], box[0]), min(last[1], box[1]), max(last[2], box[2]), max(last[3], box[3])]
                    } else {
                        rects.append(box)
                    }
                }
                hits.append(Hit(page: page.page, width: page.width, height: page.height, rects: rects, snippet: snippet(page, first, last)))
            }
            from = found.upperBound
        }
        return hits
    }

    /// Whether `box` goes on the line of `line`, the box so far, after `previous`: the word before
    /// it ended no line, and the two boxes share most of their height.
    private static func sameLine(_ previous: PageText.Word, _ line: [Double], _ box: [Double]) -> Bool {
        guard previous.next == .space || previous.next == nil, line.count == 4, box.count == 4 else { return false }
        let shared = min(line[3], box[3]) - max(line[1], box[1])
        return shared > 0.5 * min(line[3] - line[1], box[3] - box[1])
    }

    /// The part of `word`'s box under `characters` of its folded text (``folded(_:)``'s span): from
    /// the edge before the first to the edge after the last, when the word's character edges are
    /// known, else the whole box.
    static func box(of word: PageText.Word, characters: Range<Int>) -> [Double] {
        guard let edges = word.edges, word.box.count == 4, edges.count == word.text.unicodeScalars.count - 1 else { return word.box }
        let sides = [word.box[0]] + edges + [word.box[2]]
        // Each character of the word as folded (a few fold to two, "ß" to "ss") and the scalars it was.
        var (folded, scalars) = (0, 0)
        var start: Int?, end: Int?
        for character in word.text {
            let length = fold(String(character)).count
            if start == nil, characters.lowerBound < folded + length { start = scalars }
            folded += length
            scalars += character.unicodeScalars.count
            if end == nil, characters.upperBound <= folded { end = scalars }
        }
        guard let start, let end, start < end else { return word.box }
        return [sides[start], word.box[1], sides[end], word.box[3]]
    }

    private func snippet(_ page: PageText, _ first: Int, _ last: Int) -> Snippet {
        let words = page.words.map(\.text)
        let before = words[max(0, first - Self.contextWords)..<first].joined(separator: " ")
        let after = words[(last + 1)..<min(words.count, last + 1 + Self.contextWords)].joined(separator: " ")
        return Snippet(before: before, match: words[first...last].joined(separator: " "), after: after)
    }
}
