import Foundation
import PreviewCore
import PreviewPoppler
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Pages others printed and scanned (`Samples/scans/`, with their sources and licences): each read
/// at least as well as Tesseract reads it with its own defaults, less two points of word recall
/// (`floors.tsv`, measured by `scripts/bench-search --only real`).
@Suite struct RealScanTests {
    struct Page: Sendable, CustomTestStringConvertible {
        let name: String
        let floor: Double
        var testDescription: String { name }
    }

    static let folder = Fixtures.samples.appendingPathComponent("scans")

    static let pages: [Page] = {
        guard let table = try? String(contentsOf: folder.appendingPathComponent("floors.tsv"), encoding: .utf8) else { return [] }
        return table.split(separator: "\n").dropFirst().map { line in
            let columns = line.split(separator: "\t")
            return Page(name: String(columns[0]), floor: Double(columns[2]) ?? 1)
        }
    }()

    /// Words as compared: a word hyphenated at a line's end joined, then split at white space,
    /// letters and digits only, folded.
    static func words(_ text: String) -> [String] {
        text.replacing(/(\w)[-\u{AD}]\s*\n\s*(\w)/) { "\($0.1)\($0.2)" }
            .split(whereSeparator: \.isWhitespace)
            .map { $0.lowercased().filter { $0.isLetter || $0.isNumber } }
            .filter { !$0.isEmpty }
    }

    /// The share of `truth`'s words found in `read`, each word read counted once.
    static func recall(_ truth: String, _ read: String) -> Double {
        OCRTests.recall(words(truth), words(read))
    }

    @Test func theSetIsThere() {
        #expect(Self.pages.count >= 8, "Samples/scans/floors.tsv lists the real pages")
    }

    @Test(arguments: pages) func aRealPageReadsAsWellAsTesseractsDefaults(page: Page) throws {
        let path = Self.folder.appendingPathComponent(page.name).path
        let read = page.name.hasSuffix(".pdf")
            ? try PDFRenderer().ocr(path, page: 1, languages: "eng")
            : try ImageRenderer().ocr(path, languages: "eng", seconds: 120)
        let truth = try String(contentsOf: Self.folder.appendingPathComponent((page.name as NSString).deletingPathExtension + ".txt"), encoding: .utf8)
        let recall = Self.recall(truth, read.plainText)
        #expect(recall >= page.floor, "\(page.name): recall \(recall), at least \(page.floor); read as \(read.ocrPath ?? "?")")
        #expect(read.ocrPath != nil, "a reading says which of OCR's paths it is")
    }
}
