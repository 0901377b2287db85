import PreviewCore
import Testing

/// What a share's redaction finds among a page's words (issue 70, item 2): each kind by its shape
/// (and a date of birth or student ID by its label), the owner's terms as a search finds them, and
/// nothing else of the page.
@Suite struct RedactionTests {
    /// A page of `lines`, each word 10 points a character wide on a line 14 points high.
    static func page(_ lines: [String]) -> PageText {
        var words: [PageText.Word] = []
        for (row, line) in lines.enumerated() {
            var x = 72.0
            let parts = line.split(separator: " ")
            for (index, part) in parts.enumerated() {
                let width = Double(part.count) * 10
                words.append(
                    PageText.Word(
                        text: String(part), box: [x, 72 + Double(row) * 20, x + width, 86 + Double(row) * 20],
                        next: index == parts.count - 1 ? .line : .space))
                x += width + 5
            }
        }
        return PageText(page: 1, width: 612, height: 792, words: words)
    }

    static let transcript = page([
        "Official Transcript - Lincoln High School",
        "Student: Ana Rivera   Student ID: S20231847",
        "Date of Birth: 03/14/2008",
        "DOB 2008-03-14 (as on file), born March 14, 2008",
        "SSN: 123-45-6789",
        "Phone: (555) 123-4567 or 555.987.6543",
        "Email: ana.rivera@example.com",
        "Address: 1234 Maple Ave, Apt 5",
        "Springfield, IL 62704",
        "Issued 06/01/2025 - GPA 3.87 - Class of 2026 - Course 101-22-3333x"
    ])

    private func found(_ kinds: [Redaction.Kind], terms: [String] = [], on page: PageText = transcript) -> [String: [String]] {
        Dictionary(grouping: Redaction(kinds: kinds, terms: terms).findings(on: page), by: \.kind).mapValues { $0.map(\.text) }
    }

    @Test func everyKindIsFoundAndNothingElse() {
        let all = found(Redaction.Kind.allCases)
        #expect(all["date_of_birth"] == ["03/14/2008", "2008-03-14", "March 14, 2008"])
        #expect(all["student_id"] == ["S20231847"])
        #expect(all["ssn"] == ["123-45-6789"])
        #expect(all["phone"] == ["(555) 123-4567", "555.987.6543"])
        #expect(all["email"] == ["ana.rivera@example.com"])
        #expect(all["street_address"] == ["1234 Maple Ave, Apt 5", "Springfield, IL 62704"])
        // The issue date is no birth date, the GPA and class no number of anyone's.
        let hidden = Set(Redaction(kinds: Redaction.Kind.allCases).findings(on: Self.transcript).flatMap(\.words))
        let kept = Self.transcript.words.indices.filter { !hidden.contains($0) }.map { Self.transcript.words[$0].text }
        for word in ["06/01/2025", "3.87", "2026", "Lincoln", "Ana", "101-22-3333x"] { #expect(kept.contains(word), "\(word) is kept") }
    }

    @Test func onlyTheKindsAskedFor() {
        #expect(found([.email]).keys.sorted() == ["email"])
        #expect(found([]).isEmpty)
    }

    /// What the owner chose to keep after seeing the findings is not painted out.
    @Test func keptFindingsStay() {
        let kinds = Redaction(kinds: [.phone], keep: ["555.987.6543"]).findings(on: Self.transcript).map(\.text)
        #expect(kinds == ["(555) 123-4567"])
    }

    @Test func termsAreFoundAsASearchFindsThem() {
        let terms = found([], terms: ["rivera", "lincoln high"])["term"] ?? []
        #expect(terms.count == 3, "\(terms)")
    }

    /// The boxes cover every covered word's box whole, with room for a scan's ink.
    @Test func boxesCoverTheirWords() {
        for finding in Redaction(kinds: Redaction.Kind.allCases).findings(on: Self.transcript) {
            for (word, box) in zip(finding.words, finding.boxes) {
                let own = Self.transcript.words[word].box
                #expect(box[0] < own[0] && box[1] < own[1] && box[2] > own[2] && box[3] > own[3])
            }
        }
    }

    @Test func theTextSaysRedactedWhereThePixelsArePaintedOut() {
        let findings = Redaction(kinds: Redaction.Kind.allCases, terms: ["Rivera"]).findings(on: Self.transcript)
        let text = Redaction.redactedText(of: Self.transcript, findings)
        for secret in ["03/14/2008", "S20231847", "123-45-6789", "4567", "example.com", "Maple", "62704", "Rivera"] {
            #expect(!text.contains(secret), "\(secret)")
        }
        #expect(text.contains("[redacted]") && text.contains("GPA 3.87"))
    }

    /// A box the owner drew on page 1: painted out as drawn, with the words whose middle it holds
    /// (those of its line, "Issued 06/01/2025", and none of the lines above or below) left out of the
    /// text; a box on another page finds nothing here; boxes that are not boxes are refused.
    @Test func aDrawnBoxTakesTheWordsUnderIt() throws {
        // Line 10 (row 9) lies from 252 to 266 points: the box holds its first two words' middles.
        let box = [72.0 / 612, 250.0 / 792, 240.0 / 612, 268.0 / 792]
        let redaction = Redaction(kinds: [], boxes: [.init(page: 1, box: box), .init(page: 2, box: [0, 0, 1, 1])])
        try redaction.check()
        let findings = redaction.findings(on: Self.transcript, number: 1)
        #expect(findings.count == 1 && findings.first?.kind == "box" && findings.first?.text == "Issued 06/01/2025")
        let painted = try #require(findings.first?.boxes.first)
        #expect(zip(painted, [72, 250, 240, 268]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(painted)")
        let text = Redaction.redactedText(of: Self.transcript, findings)
        #expect(!text.contains("06/01/2025") && text.contains("GPA 3.87") && text.contains("Springfield"))
        #expect(Redaction(kinds: [], boxes: [.init(page: 2, box: box)]).findings(on: Self.transcript, number: 1).isEmpty)
        for bad in [[0.5, 0.5, 0.4, 0.6], [0, 0, 1.5, 1], [0, 0, .nan, 1], [0, 0, 1]] {
            #expect(throws: PreviewError.self, "\(bad)") { try Redaction(kinds: [], boxes: [.init(page: 1, box: bad)]).check() }
        }
        #expect(throws: PreviewError.self) { try Redaction(kinds: [], boxes: [.init(page: 0, box: box)]).check() }
    }
}
