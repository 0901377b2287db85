import Foundation

/// Where a query's text occurs on a page: each occurrence with the words it covers, their boxes
/// and a snippet of the page around it. Case and diacritics do not matter ("ecole" finds "École"),
/// and the text may start or end inside a word ("RE16" finds "CORE168"), across the words of a line.
public struct TextHits: Sendable {
    /// One occurrence.
    public struct Hit: Sendable, Equatable, Encodable {
        public var page: Int
        /// The page's size as displayed, in points (what the boxes are within).
        public var width: Double
        public var height: Double
        /// The boxes of the words it covers (left, top, right, bottom in points).
        public var rects: [[Double]]
        public var snippet: Snippet
    }

    /// A few words of the page around an occurrence, the occurrence apart, so a client marks it as it likes.
    public struct Snippet: Sendable, Equatable, Encodable {
        public var before: String
        public var match: String
        public var after: String
    }

    /// The shortest and longest text searched for, in characters.
    public static let lengths = 2...100
    /// Words of context on each side of a snippet.
    static let contextWords = 6

    /// The folded query.
    let needle: String

    /// Nil when `query`, trimmed, is outside ``lengths``.
    public init?(query: String) {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.lengths.contains(trimmed.count) else { return nil }
        needle = Self.fold(trimmed.split(whereSeparator: \.isWhitespace).joined(separator: " "))
    }

    /// Case and diacritics folded away, as both the page and the query are compared.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Every occurrence on `page`, in reading order, at most `limit`.
    public func hits(on page: PageText, limit: Int) -> [Hit] {
        guard limit > 0, !page.words.isEmpty else { return [] }
        // The page's words folded and joined by spaces, each word's place in it remembered.
        var haystack = ""
        var spans: [Range<String.Index>] = []
        for word in page.words {
            if !haystack.isEmpty { haystack += " " }
            let start = haystack.endIndex
            haystack += Self.fold(word.text)
            spans.append(start..<haystack.endIndex)
        }
        var hits: [Hit] = []
        var from = haystack.startIndex
        while hits.count < limit, let found = haystack.range(of: needle, range: from..<haystack.endIndex) {
            let covered = spans.indices.filter { spans[$0].overlaps(found) }
            if let first = covered.first, let last = covered.last {
                hits.append(Hit(page: page.page, width: page.width, height: page.height, rects: covered.map { page.words[$0].box },
                                snippet: snippet(page, first, last)))
            }
            from = found.upperBound
        }
        return hits
    }

    private func snippet(_ page: PageText, _ first: Int, _ last: Int) -> Snippet {
        let words = page.words.map(\.text)
        let before = words[max(0, first - Self.contextWords)..<first].joined(separator: " ")
        let after = words[(last + 1)..<min(words.count, last + 1 + Self.contextWords)].joined(separator: " ")
        return Snippet(before: before, match: words[first...last].joined(separator: " "), after: after)
    }
}
