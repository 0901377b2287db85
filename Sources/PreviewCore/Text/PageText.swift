/// The words of one page in reading order, each with its box in points on the page as displayed
/// (origin at the top left, y downwards), and what follows it: from a PDF's text layer, or read
/// from the page's pixels.
public struct PageText: Codable, Sendable, Equatable {
    /// What follows a word in reading order.
    public enum Break: String, Codable, Sendable {
        /// A space on the same line.
        case space
        /// The end of its line.
        case line
        /// The end of its line, which is hyphenated: the word goes on on the next one.
        case hyphen
        /// The end of its block (a paragraph, a column's run of lines).
        case block
    }

    public struct Word: Codable, Sendable, Equatable {
        package var text: String
        /// Left, top, right, bottom, in points.
        package var box: [Double]
        /// Nil: the next word follows with no space (parts of one word the page drew apart).
        package var next: Break?
        /// For a word of a text layer written left to right, where its characters meet: x in points
        /// between the first character and the second, and so on (one fewer than its characters),
        /// to a tenth of a point. A hit inside the word is marked from one to another; nil: the
        /// word's box is all we know.
        package var edges: [Double]?

        public init(text: String, box: [Double], next: Break?, edges: [Double]? = nil) {
            self.text = text
            self.box = box
            self.next = next
            self.edges = edges
        }

        /// ``edges`` as they are kept and sent: tenths of a point from the word's left side (whole
        /// numbers encode and decode several times faster than fractions). Nil when the word has no
        /// edges, or one is no such number (a hostile page's).
        package var edgeTenths: [Int]? {
            guard let edges, let left = box.first else { return nil }
            let tenths = edges.map { Int(exactly: (($0 - left) * 10).rounded()) }
            return tenths.contains(nil) ? nil : tenths.compactMap { $0 }
        }

        /// Edges from their ``edgeTenths`` and the word's left side.
        package static func edges(tenths: [Int], left: Double) -> [Double] {
            tenths.map { PageText.hundredths(left + Double($0) / 10) }
        }

        private enum CodingKeys: String, CodingKey { case text, box, next, edges }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            box = try container.decode([Double].self, forKey: .box)
            next = try container.decodeIfPresent(Break.self, forKey: .next)
            edges = try container.decodeIfPresent([Int].self, forKey: .edges).map { Self.edges(tenths: $0, left: box.first ?? 0) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(box, forKey: .box)
            try container.encodeIfPresent(next, forKey: .next)
            try container.encodeIfPresent(edgeTenths, forKey: .edges)
        }
    }

    /// `points` to a hundredth of a point, as boxes and edges are given: far finer than any glyph's
    /// box is known.
    package static func hundredths(_ points: Double) -> Double {
        (points * 100).rounded() / 100
    }

    /// 1-based.
    package var page: Int
    /// The page's size as displayed, in points.
    package var width: Double
    package var height: Double
    package var words: [Word]
    /// Words past the bound on one page were left out.
    package var truncated: Bool
    /// Which of OCR's readings the words are (`gray`, `local`, `sparse`: ``PreviewOCR``'s paths),
    /// prefixed `photo+` when the page was found in a photo and its perspective taken out; nil for
    /// a text layer's.
    package var ocrPath: String?

    public init(page: Int, width: Double, height: Double, words: [Word], truncated: Bool = false, ocrPath: String? = nil) {
        self.page = page
        self.width = width
        self.height = height
        self.words = words
        self.truncated = truncated
        self.ocrPath = ocrPath
    }

    /// The page's text in reading order: words joined by spaces, lines by line breaks, blocks by a
    /// blank line; a hyphenated line's word joined across it.
    package var plainText: String {
        var text = ""
        for word in words {
            text += word.text
            switch word.next {
            case .space?: text += " "
            case .line?: text += "\n"
            case .hyphen?: if text.last == "-" || text.last == "\u{AD}" { text.removeLast() }
            case .block?: text += "\n\n"
            case nil: break
            }
        }
        while text.last?.isNewline == true || text.last == " " { text.removeLast() }
        return text
    }
}

/// A page's text as it is reported (`text --json`, the API's `/text`): its plain text beside its words.
package struct PageTextReport: Encodable, Sendable {
    package var page: Int
    package var width: Double
    package var height: Double
    package var text: String
    package var words: [PageText.Word]
    package var truncated: Bool
    /// Which of OCR's readings the words are; nil for a text layer's.
    package var ocrPath: String?

    package init(_ text: PageText) {
        (page, width, height, words, truncated, ocrPath) = (text.page, text.width, text.height, text.words, text.truncated, text.ocrPath)
        self.text = text.plainText
    }
}
