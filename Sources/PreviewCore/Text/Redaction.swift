import Foundation

/// What a share keeps from the person it is for: kinds of personal data found in the document's
/// words (its text layer, or what OCR read of a scan or photo), and the owner's own terms.
public struct Redaction: Codable, Sendable, Hashable {
    /// Personal data found by its shape, and for a date of birth or a student ID by its label.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A date (03/14/2008, 2008-03-14, March 14, 2008, 14 March 2008) after "Date of Birth", "DOB", "Born"…
        case dateOfBirth = "date_of_birth"
        /// The number after "Student ID", "Student No.", "ID #"… (as OCR may read them: "Student 1D").
        case studentID = "student_id"
        /// 123-45-6789, or nine digits after "SSN" or "Social Security".
        case ssn
        /// A North American number: (555) 123-4567, 555-123-4567, +1 555 123 4567…
        case phone
        case email
        /// "1234 Maple Ave, Apt 5" and "Springfield, IL 62704".
        case streetAddress = "street_address"
    }

    package var kinds: [Kind]
    /// The owner's terms: each 2–100 characters, found as a search finds it.
    package var terms: [String]
    /// What the owner chose to leave after seeing what was found: findings whose text is one of these
    /// are not painted out.
    package var keep: [String]
    /// Boxes the owner drew on pages, painted out with the words under them.
    package var boxes: [DrawnBox]

    /// A box drawn on page `page`: left, top, right, bottom as fractions of the page (0–1, from its top left).
    public struct DrawnBox: Codable, Sendable, Hashable {
        package var page: Int
        package var box: [Double]

        package init(page: Int, box: [Double]) {
            (self.page, self.box) = (page, box)
        }

        /// Whether it is a box: page 1–100,000, four finite fractions, not empty.
        var isValid: Bool {
            (1...100_000).contains(page) && box.count == 4 && box.allSatisfy { $0.isFinite && (0...1).contains($0) }
                && box[0] < box[2] && box[1] < box[3]
        }
    }

    package init(kinds: [Kind], terms: [String] = [], keep: [String] = [], boxes: [DrawnBox] = []) {
        (self.kinds, self.terms, self.keep, self.boxes) = (kinds, terms, keep, boxes)
    }

    enum CodingKeys: CodingKey { case kinds, terms, keep, boxes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kinds = try container.decode([Kind].self, forKey: .kinds)
        terms = try container.decodeIfPresent([String].self, forKey: .terms) ?? []
        keep = try container.decodeIfPresent([String].self, forKey: .keep) ?? []
        boxes = try container.decodeIfPresent([DrawnBox].self, forKey: .boxes) ?? []
    }

    /// The most terms one share takes.
    package static let maxTerms = 50
    /// The most boxes one share's owner draws.
    package static let maxBoxes = 200

    /// At most ``maxTerms`` terms, each one a search takes, and as many texts kept, or `bad_request`.
    package func check() throws(PreviewError) {
        guard keep.count <= Self.maxTerms, keep.allSatisfy({ $0.count <= 200 }) else {
            throw PreviewError(.badRequest, "redact_keep holds at most \(Self.maxTerms) texts of at most 200 characters")
        }
        guard terms.count <= Self.maxTerms,
            terms.allSatisfy({ term in TextHits(query: term) != nil && !term.unicodeScalars.contains { $0.properties.generalCategory == .control } })
        else {
            throw PreviewError(.badRequest, "redact_terms holds at most \(Self.maxTerms) terms; " + TextHits.requirement("each"))
        }
        guard boxes.count <= Self.maxBoxes, boxes.allSatisfy(\.isValid) else {
            throw PreviewError(
                .badRequest,
                "redact_boxes holds at most \(Self.maxBoxes) boxes, each {\"page\", \"box\": [left, top, right, bottom]} in fractions of the page")
        }
    }

    /// Whether it removes nothing.
    package var isEmpty: Bool { kinds.isEmpty && terms.isEmpty && boxes.isEmpty }

    /// One thing found on a page: what kind (or `term`, or `box` for one drawn), its words as the page
    /// has them, and the boxes painted out (left, top, right, bottom, in the page's units: points, or
    /// an image's pixels).
    package struct Finding: Codable, Sendable, Equatable {
        package var kind: String
        package var text: String
        package var boxes: [[Double]]
        /// The words it covers, by their index on the page.
        package var words: [Int]
    }

    /// What `self` finds among `page`'s words, and the boxes drawn on it as page `number` (the words
    /// whose middle they hold go with them).
    package func findings(on page: PageText, number: Int = 0) -> [Finding] {
        let line = JoinedWords(page.words)
        var found: [Finding] = []
        for kind in kinds {
            for pattern in Self.patterns(kind) {
                for match in line.text.matches(of: pattern) {
                    let range = match.output.dropFirst().lazy.compactMap(\.range).first ?? match.range
                    let words = line.words(in: range)
                    guard !words.isEmpty else { continue }
                    found.append(
                        Finding(
                            kind: kind.rawValue, text: words.map { page.words[$0].text }.joined(separator: " "),
                            boxes: words.map { Self.padded(page.words[$0].box) }, words: words))
                }
            }
        }
        for term in terms {
            guard let hits = TextHits(query: term) else { continue }
            for hit in hits.hits(on: page, limit: 1_000) {
                found.append(Finding(kind: "term", text: hit.snippet.match, boxes: hit.rects.map(Self.padded), words: []))
            }
        }
        let kept = Set(keep)
        return found.filter { !kept.contains($0.text) } + drawn(on: page, number: number)
    }

    /// The boxes drawn on page `number`, in its units, with the words whose middle each holds.
    private func drawn(on page: PageText, number: Int) -> [Finding] {
        boxes.filter { $0.page == number && $0.isValid }.map { drawn in
            let box = [drawn.box[0] * page.width, drawn.box[1] * page.height, drawn.box[2] * page.width, drawn.box[3] * page.height]
            let words = page.words.indices.filter { index in
                let word = page.words[index].box
                guard word.count == 4 else { return false }
                let (x, y) = ((word[0] + word[2]) / 2, (word[1] + word[3]) / 2)
                return box[0] <= x && x <= box[2] && box[1] <= y && y <= box[3]
            }
            return Finding(kind: "box", text: words.map { page.words[$0].text }.joined(separator: " "), boxes: [box], words: words)
        }
    }

    /// The words of `page` with the findings' words taken out (each run replaced by one "[redacted]"):
    /// what its text may say where its pixels are painted out.
    package static func redactedText(of page: PageText, _ findings: [Finding]) -> String {
        let hidden = Set(findings.flatMap(\.words))
        var kept = page
        var previousHidden = false
        kept.words = page.words.enumerated().compactMap { index, word in
            guard hidden.contains(index) else {
                previousHidden = false
                return word
            }
            defer { previousHidden = true }
            return previousHidden ? nil : PageText.Word(text: "[redacted]", box: word.box, next: word.next ?? .space)
        }
        // A term inside a word is hidden in its pixels; its text goes too.
        var text = kept.plainText
        for finding in findings where finding.kind == "term" && !finding.text.isEmpty {
            text = text.replacingOccurrences(of: finding.text, with: "[redacted]", options: [.caseInsensitive, .diacriticInsensitive])
        }
        return text
    }

    /// A word's box grown by a sixth of its height on every side: the ink of a scan's or a photo's
    /// letters reaches past what OCR boxes.
    private static func padded(_ box: [Double]) -> [Double] {
        guard box.count == 4 else { return box }
        let pad = max(0, box[3] - box[1]) / 6
        return [box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad]
    }

    /// The patterns of `kind`: what they capture (their first group that matched, else the whole
    /// match) is hidden.
    private static func patterns(_ kind: Kind) -> [Regex<AnyRegexOutput>] {
        switch kind {
        case .dateOfBirth: [dateOfBirth]
        case .studentID: [studentID]
        case .ssn: [ssn]
        case .phone: [phone]
        case .email: [email]
        case .streetAddress: [street, cityLine]
        }
    }

    private static let date =
        #"(\d{1,2}[/.\-]\d{1,2}[/.\-](?:\d{4}|\d{2})|\d{4}-\d{2}-\d{2}"#
        + #"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}"#
        + #"|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+\d{4})"#
    nonisolated(unsafe) private static let dateOfBirth = try! Regex(
        #"(?i)(?:date\s+of\s+birth|birth\s*date|birthday|\bd\.?\s?o\.?\s?b\b\.?|\bborn(?:\s+on)?\b)\s*[:\-]?\s*"# + date)
    nonisolated(unsafe) private static let studentID = try! Regex(
        #"(?i)(?:student\s*(?:[il1|]\s?d|#|no\b\.?|number)|\b[il1]d\s*(?:#|no\b\.?|number))\s*[:;#.]?\s*(\S*\d\S{3,})"#)
    nonisolated(unsafe) private static let ssn = try! Regex(
        #"(?i)(?:\b(?:ssn|social\s+security(?:\s+(?:no\b\.?|number|#))?)\s*[:#]?\s*(\d{9}\b)|\b(\d{3}[\- ]\d{2}[\- ]\d{4})\b)"#)
    nonisolated(unsafe) private static let phone = try! Regex(
        #"(?:^|[^\d\-])((?:\+?1[\s.\-]?)?\(?\d{3}\)?[\s.\-]?\d{3}[\s.\-]\d{4})\b"#)
    nonisolated(unsafe) private static let email = try! Regex(#"([A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})"#)
    nonisolated(unsafe) private static let street = try! Regex(
        #"\b(\d{1,6}\s+(?:[A-Z0-9][A-Za-z0-9.'\-]*\s+){1,4}"#
            + #"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|circle|cir|parkway|pkwy|highway|hwy)"#
            + #"\b\.?(?:,?\s+(?i:apt|apartment|suite|unit|#)\.?\s*[A-Za-z0-9\-]+)?)"#
    )
    nonisolated(unsafe) private static let cityLine = try! Regex(
        #"\b((?:[A-Z][A-Za-z.'\-]*\s+){0,3}[A-Z][A-Za-z.'\-]*,\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?)\b"#)
}

/// A page's words joined into one text (a space between words, nothing where a word goes on), with
/// where each word lies in it.
private struct JoinedWords {
    let text: String
    /// Each word's range in ``text``, by index.
    private let spans: [Range<String.Index>]

    init(_ words: [PageText.Word]) {
        var text = ""
        var offsets: [(Int, Int)] = []
        for word in words {
            let start = text.utf8.count
            text += word.text
            offsets.append((start, text.utf8.count))
            if word.next != nil { text += word.next == .line || word.next == .block ? "\n" : " " }
        }
        self.text = text
        // A native string's UTF-8 offsets are indices at once.
        let utf8 = text.utf8
        spans = offsets.map { start, end in utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end) }
    }

    /// The indexes of the words `range` touches.
    func words(in range: Range<String.Index>) -> [Int] {
        spans.indices.filter { spans[$0].overlaps(range) }
    }
}
