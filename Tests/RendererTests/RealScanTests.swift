import Foundation
import PreviewCore
import PreviewPoppler
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Pages others printed and scanned (`Samples/scans/`, with their sources and licences): each read
/// at least as well as Tesseract reads it with its own defaults, less two points of word recall
/// (`floors.tsv`, measured by `scripts/bench-search --only real`); photographed on a desk at an
/// angle (`photos/`, made by `scripts/make-photos`), as well as Tesseract reads the flat scan, less
/// two points, and each word's box on that word of the page.
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

    /// Where a photo of `photos/` shows its page (`NAME.json`, written by `scripts/make-photos`).
    struct Photo: Decodable {
        /// The page photographed, a file of the set.
        let page: String
        /// The projective transform taking a point of the photo onto the page's pixels (3 × 3).
        let photoToPage: [[Double]]
        enum CodingKeys: String, CodingKey { case page, photoToPage = "photo_to_page" }

        init(of name: String) throws {
            let facts = RealScanTests.folder.appendingPathComponent((name as NSString).deletingPathExtension + ".json")
            self = try JSONDecoder().decode(Photo.self, from: Data(contentsOf: facts))
        }

        /// The point (`x`, `y`) of the photo on the page.
        func onPage(_ x: Double, _ y: Double) -> (Double, Double) {
            let h = photoToPage, w = h[2][0] * x + h[2][1] * y + h[2][2]
            return ((h[0][0] * x + h[0][1] * y + h[0][2]) / w, (h[1][0] * x + h[1][1] * y + h[1][2]) / w)
        }
    }

    @Test func theSetIsThere() {
        #expect(Self.pages.count(where: { !$0.name.hasPrefix("photos/") }) >= 8, "Samples/scans/floors.tsv lists the real pages")
        #expect(Self.pages.count(where: { $0.name.hasPrefix("photos/") }) >= 4, "and photos of them")
    }

    /// Page `name` of the set as OCR reads it, read once for the suite's tests (a photo's test
    /// reads its flat scan too).
    static func read(_ name: String) throws -> PageText {
        if let known = readings.withLock({ $0[name] }) { return known }
        let path = folder.appendingPathComponent(name).path
        let read =
            name.hasSuffix(".pdf")
            ? try PDFRenderer().ocr(path, page: 1, languages: "eng")
            : try ImageRenderer().ocr(path, languages: "eng", seconds: 120)
        readings.withLock { $0[name] = read }
        return read
    }

    private static let readings = Locked([String: PageText]())

    @Test(arguments: pages) func aRealPageReadsAsWellAsTesseractsDefaults(page: Page) throws {
        let read = try Self.read(page.name)
        let shown = page.name.hasPrefix("photos/") ? try Photo(of: page.name).page : page.name
        let truth = try String(contentsOf: Self.folder.appendingPathComponent((shown as NSString).deletingPathExtension + ".txt"), encoding: .utf8)
        let recall = Self.recall(truth, read.plainText)
        #expect(recall >= page.floor, "\(page.name): recall \(recall), at least \(page.floor); read as \(read.ocrPath ?? "?")")
        #expect(read.ocrPath != nil, "a reading says which of OCR's paths it is")
        let found = read.ocrPath?.hasPrefix("photo+") == true
        #expect(found == page.name.hasPrefix("photos/"), "a photo's page is found on its desk, a scan is read whole: \(read.ocrPath ?? "?")")
    }

    /// A word read on a photo lies on the page where the flat scan's reading has that word: its
    /// box's centre, taken onto the page by the photo's perspective, is inside the scan's box of it
    /// (19 in 20 of the words both readings have).
    @Test(arguments: pages.filter { $0.name.hasPrefix("photos/") }) func aPhotographedWordsBoxIsOnTheWord(photo: Page) throws {
        let shown = try Photo(of: photo.name)
        let flat = try Self.read(shown.page), read = try Self.read(photo.name)
        let boxes = flat.words.reduce(into: [String: [[Double]]]()) { boxes, word in
            boxes[OCRTests.normalized([word.text]).first ?? "", default: []].append(word.box)
        }
        var (placed, compared) = (0, 0)
        for word in read.words {
            guard let key = OCRTests.normalized([word.text]).first, let candidates = boxes[key] else { continue }
            compared += 1
            let (x, y) = shown.onPage((word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2)
            if candidates.contains(where: { $0[0] <= x && x <= $0[2] && $0[1] <= y && y <= $0[3] }) { placed += 1 }
        }
        #expect(compared >= read.words.count / 2, "\(photo.name): most words read are the scan's too (\(compared) of \(read.words.count))")
        #expect(placed * 20 >= compared * 19, "\(photo.name): \(placed) of \(compared) boxes on their word")
    }
}
