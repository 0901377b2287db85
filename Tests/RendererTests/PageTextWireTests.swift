import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// ``PageTextWire``: what a renderer child sends of a page's words is what JSON carried, and a
/// hostile child's bytes are no page, never a trap.
@Suite struct PageTextWireTests {
    /// A real page's text layer, and words with every shape a page can give.
    static func pages() throws -> [PageText] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let transcript = try folder.file("transcript.pdf", LinesPDF.make([Fixtures.transcriptLines]))
        let real = try PDFRenderer(pageSeconds: 30).text(transcript.path, page: 1)
        let left = 10.125
        let shapes = PageText(
            page: 7, width: 612.5, height: 792,
            words: [
                // Edges off the tenths of a point the wire keeps (as JSON does): 7.33 and 14.77 from the left side.
                .init(text: "École", box: [left, 20, 55.5, 31], next: .space, edges: [left + 7.33, left + 14.77, 31, 40]),
                .init(text: "multi-", box: [60, 20, 90, 31], next: .hyphen),
                .init(text: "ple", box: [10, 40, 25, 51], next: nil, edges: []),
                .init(text: "", box: [], next: .block),
                .init(text: "far", box: [1, 2, 3, 4], next: .line, edges: [1e15])
            ], truncated: true, ocrPath: "photo+sparse")
        return [real, shapes, PageText(page: 1, width: 0, height: 0, words: [])]
    }

    @Test func aPageArrivesAsJSONCarriedIt() throws {
        let pages = try Self.pages()
        #expect(pages[0].words.count > 20 && pages[0].words.contains { $0.edges != nil }, "a transcript's page has words, with edges")
        for page in pages {
            let json = try JSONDecoder().decode(PageText.self, from: JSONEncoder().encode(page))
            #expect(PageTextWire.decode(PageTextWire.encode(page)) == json)
        }
    }

    /// Every cut of a page's bytes, and bytes changed one at a time, decode to no page or to one
    /// whose numbers are finite; a count that promises more than the bytes hold is refused at once.
    @Test func aHostileChildsBytesAreNoPage() throws {
        let bytes = PageTextWire.encode(try Self.pages()[1])
        for length in 0..<bytes.count {
            #expect(PageTextWire.decode(Array(bytes.prefix(length))) == nil, "cut at \(length)")
        }
        #expect(PageTextWire.decode(bytes + [0]) == nil, "a byte after the page")
        for index in bytes.indices {
            for value: UInt8 in [0, 0x7F, 0xFF] {
                var changed = bytes
                changed[index] = value
                if let page = PageTextWire.decode(changed) {
                    #expect(page.width.isFinite && page.height.isFinite && page.words.allSatisfy { $0.box.allSatisfy(\.isFinite) })
                }
            }
        }
        var huge = bytes
        let count = 1 + 4 + 8 + 8 + 1 + 2 + "photo+sparse".utf8.count
        huge.replaceSubrange(count..<(count + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(PageTextWire.decode(huge) == nil)
    }
}
