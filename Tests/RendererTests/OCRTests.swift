import Foundation
import PreviewCore
@testable import PreviewOCR
import PreviewPoppler
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Scans and phone photos read by Tesseract: a page's pixels give the words its text layer holds,
/// where it holds them; a photo of the page, turned, softened and shaded, gives them too (read
/// again, thresholded locally, where Tesseract is unsure of it, and the deskew estimate); a page
/// under a hard shadow is read whole and one whose light only fades is read once; a photo of
/// nothing is read once; the budget stops a reading; a missing language is said plainly.
@Suite struct OCRTests {
    static let lines = Fixtures.transcriptLines

    /// Words as compared: letters and digits only, folded.
    static func normalized(_ words: [String]) -> [String] {
        words.map { $0.lowercased().filter { $0.isLetter || $0.isNumber } }.filter { !$0.isEmpty }
    }

    /// The share of `expected` words found in `found` (each found word counted once).
    static func recall(_ expected: [String], _ found: [String]) -> Double {
        var pool = normalized(found).reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        let wanted = normalized(expected)
        let hits = wanted.filter { word in
            guard let count = pool[word], count > 0 else { return false }
            pool[word] = count - 1
            return true
        }.count
        return Double(hits) / Double(wanted.count)
    }

    /// How many of `words` lie where the text layer `layer` has them: the centre of a word's box,
    /// brought onto the page by `onPage`, inside the layer's box of the same word (glyph boxes are
    /// tighter than the font's, so their overlap says less).
    static func placed(_ words: [PageText.Word], on layer: PageText, onPage: (Double, Double) -> (Double, Double)) -> Int {
        words.filter { word in
            let (x, y) = onPage((word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2)
            return layer.words.contains { twin in
                normalized([twin.text]) == normalized([word.text]) && twin.box[0] <= x && x <= twin.box[2] && twin.box[1] <= y && y <= twin.box[3]
            }
        }.count
    }

    /// Page 1 of the PDF at `path` drawn as a scanner gives it: Letter at 300 ppi, RGB.
    static func letterPage(_ path: String) throws -> PixelBuffer {
        try PDFDocument(path: path).page(1).withPixels(width: 2550, height: 3300, seconds: 20) { rgb in
            PixelBuffer(width: 2550, height: 3300, bands: 3, bytes: Array(rgb))
        }
    }

    @Test func aPagesPixelsGiveItsWordsWhereTheyAre() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("transcript.pdf", LinesPDF.make([Self.lines]))
        let renderer = PDFRenderer()
        let layer = try renderer.text(pdf.path, page: 1)
        let read = try renderer.ocr(pdf.path, page: 1, languages: "eng")
        #expect((read.width, read.height) == (612, 792))
        let recall = Self.recall(layer.words.map(\.text), read.words.map(\.text))
        #expect(recall >= 0.95, "recall \(recall): \(read.words.map(\.text).joined(separator: " "))")
        let placed = Self.placed(read.words, on: layer) { x, y in (x, y) }
        #expect(Double(placed) >= 0.9 * Double(read.words.count), "\(placed) of \(read.words.count) placed")
    }

    @Test func aPhonePhotoOfThePageIsRead() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("transcript.pdf", LinesPDF.make([Self.lines]))
        let layer = try PDFRenderer().text(pdf.path, page: 1)
        let clean = try Self.letterPage(pdf.path)
        for degrees in [3.0, 10.0] {
            let photo = PhonePhoto.make(from: clean, degrees: degrees)
            let encoded = try Encoding.encode(photo, rotation: 0, RenderRequest(format: .jpeg))
            let file = try folder.file("photo-\(Int(degrees)).jpg", encoded.bytes)
            let read = try ImageRenderer().reading(.jpeg).ocr(file.path, languages: "eng", seconds: 20)
            let recall = Self.recall(Self.lines.joined(separator: " ").split(separator: " ").map(String.init), read.words.map(\.text))
            #expect(recall >= 0.95, "turned \(degrees)°: recall \(recall): \(read.plainText)")
            #expect((read.width, read.height) == (Double(photo.width), Double(photo.height)))
            // The boxes are on the photo as taken: each word's centre, turned back onto the page and
            // in points, lies in the text layer's box of that word.
            let (radians, cx, cy, points) = (degrees * .pi / 180, Double(photo.width) / 2, Double(photo.height) / 2, 612.0 / 2550)
            let placed = Self.placed(read.words, on: layer) { x, y in
                let (dx, dy) = (x - cx, y - cy)
                return ((cx + dx * cos(radians) + dy * sin(radians)) * points, (cy - dx * sin(radians) + dy * cos(radians)) * points)
            }
            #expect(Double(placed) >= 0.9 * Double(read.words.count), "turned \(degrees)°: \(placed) of \(read.words.count) placed")
        }
    }

    /// A page of 36 lines at 300 ppi whose light is changed by `light` (a pixel's row and column to
    /// the share of its brightness kept), and the text layer of the page drawn.
    static func lit(_ light: (Int, Int) -> Double) throws -> (PixelBuffer, PageText) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let lines = (0..<36).map { Self.lines[$0 % Self.lines.count] }
        let pdf = try folder.file("page.pdf", LinesPDF.make([lines]))
        var page = try Self.letterPage(pdf.path)
        let (width, height) = (page.width, page.height)
        page.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let kept = light(y, x)
                    for at in (y * width + x) * 3..<(y * width + x + 1) * 3 { bytes[at] = UInt8(Double(bytes[at]) * kept) }
                }
            }
        }
        return (page, try PDFRenderer().text(pdf.path, page: 1))
    }

    /// A hard shadow across the lower two fifths of a page (its paper at 45 % of the light): Tesseract's
    /// global threshold takes its words black with their paper, and the lit part is no page on a
    /// desk (the ground shows beyond one edge only), so the page is read whole, thresholded locally.
    @Test func aPageUnderAHardShadowIsReadWhole() throws {
        let (page, layer) = try Self.lit { y, _ in y >= 3300 * 3 / 5 ? 0.45 : 1 }
        let read = try OCR.read(page, ppi: 300, languages: "eng", seconds: 60, maxWords: 10_000)
        let shaded = layer.words.filter { $0.box[1] >= 792 * 3 / 5 }.map(\.text)
        #expect(shaded.count > 60)
        #expect(!read.rectified && read.path == .local, "\(read.path), rectified \(read.rectified)")
        let recall = Self.recall(shaded, read.words.map(\.text))
        #expect(recall >= 0.95, "the shaded lines' recall \(recall)")
    }

    /// Light that only fades across the page (its paper from 100 % to 70 %) leaves every word to
    /// Tesseract's own reading: the page is read once.
    @Test func lightThatOnlyFadesIsReadOnce() throws {
        let (page, layer) = try Self.lit { _, x in 1 - 0.3 * Double(x) / 2549 }
        let read = try OCR.read(page, ppi: 300, languages: "eng", seconds: 60, maxWords: 10_000)
        #expect(read.readings == 1 && read.path == .gray, "\(read.readings) readings, \(read.path)")
        let recall = Self.recall(layer.words.map(\.text), read.words.map(\.text))
        #expect(recall >= 0.95, "recall \(recall): \(read.words.map(\.text).joined(separator: " "))")
    }

    /// A scanned page is drawn to be read at its scan's own resolution (the image covering half the
    /// page or more, found without decoding it), within 200 … 300 ppi; a page that is no scan at 300.
    @Test func aScanIsReadAtItsOwnResolution() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let white = PixelBuffer(width: 1700, height: 2200, bands: 3, bytes: [UInt8](repeating: 255, count: 1700 * 2200 * 3))
        let jpeg = try Encoding.encode(white, rotation: 0, RenderRequest(format: .jpeg)).bytes
        let scan = try folder.file("scan.pdf", ScanPDF.make(jpeg: jpeg, width: 1700, height: 2200))
        let typed = try folder.file("typed.pdf", LinesPDF.make([Self.lines]))
        let ppi = try #require(try PDFDocument(path: scan.path).page(1).imagePPI(seconds: 5))
        #expect(abs(ppi - 200) < 0.5, "\(ppi)")
        #expect(try PDFDocument(path: typed.path).page(1).imagePPI(seconds: 5) == nil)
        #expect(OCRReading.scanPPI(ppi) == 200 && OCRReading.scanPPI(nil) == 300)
        #expect(OCRReading.scanPPI(150) == 200 && OCRReading.scanPPI(240.4) == 240 && OCRReading.scanPPI(600) == 300)
        #expect(OCRReading.scanPPI(.infinity) == 300 && OCRReading.scanPPI(.nan) == 300)
    }

    /// A stats sheet's figures are read column by column, each with its box on its cell: on the
    /// page drawn at 300 ppi, and photographed (turned 4°, shaded); nineteen in twenty of the
    /// figures found, and of those read, nineteen in twenty where the text layer has them.
    @Test func aStatsSheetsEveryColumnIsReadWithItsCellsBoxes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("stats.pdf", StatsSheetPDF.make())
        let layer = try PDFRenderer().text(pdf.path, page: 1)
        let figures = layer.words.map(\.text).filter { $0.first?.isNumber == true }
        #expect(figures.count == 15 * 10 + 15, "ten figures a player, and the players' numbers")
        let clean = try Self.letterPage(pdf.path)
        for degrees in [0.0, 4.0] {
            let photo = degrees == 0 ? clean : PhonePhoto.make(from: clean, degrees: degrees)
            let encoded = try Encoding.encode(photo, rotation: 0, RenderRequest(format: .png))
            let file = try folder.file("sheet-\(Int(degrees)).png", encoded.bytes)
            let read = try ImageRenderer().reading(.png).ocr(file.path, languages: "eng", seconds: 60)
            let numbers = read.words.filter { $0.text.first?.isNumber == true }
            let recall = Self.recall(figures, numbers.map(\.text))
            #expect(recall >= 0.95, "turned \(degrees)°: \(recall) of the figures read (\(read.ocrPath ?? "?")): \(read.plainText)")
            let (radians, cx, cy, points) = (degrees * .pi / 180, Double(photo.width) / 2, Double(photo.height) / 2, 612.0 / 2550)
            let placed = Self.placed(numbers, on: layer) { x, y in
                let (dx, dy) = (x - cx, y - cy)
                return ((cx + dx * cos(radians) + dy * sin(radians)) * points, (cy - dx * sin(radians) + dy * cos(radians)) * points)
            }
            #expect(placed * 20 >= numbers.count * 19, "turned \(degrees)°: \(placed) of \(numbers.count) figures on their cells")
        }
    }

    @Test func theBudgetStopsAReading() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("dense.pdf", TextPDF.make())
        #expect(throws: PreviewError.self) { try PDFRenderer(pageSeconds: 0.05).ocr(pdf.path, page: 1, languages: "eng") }
        do {
            _ = try PDFRenderer(pageSeconds: 0.05).ocr(pdf.path, page: 1, languages: "eng")
        } catch {
            #expect(error.code == .timeout, "\(error)")
        }
        #expect(throws: PreviewError.self) { try PDFRenderer().ocr(pdf.path, page: 1, languages: "xyz") }
    }

    /// A photo of nothing (noise in a black frame) and a black page are read once, as Tesseract's
    /// defaults read them, never again along the other paths (noise thresholded locally costs
    /// Tesseract ten times a page), and give next to no words.
    @Test func aPhotoOfNothingIsReadOnce() throws {
        let (width, height, frame) = (1500, 2000, 100)
        var state: UInt64 = 7
        var noise = [UInt8](repeating: 0, count: width * height)
        for y in frame..<(height - frame) {
            for x in frame..<(width - frame) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                noise[y * width + x] = UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        for bytes in [noise, [UInt8](repeating: 0, count: width * height)] {
            let read = try OCR.read(
                PixelBuffer(width: width, height: height, bands: 1, bytes: bytes), ppi: 300, languages: "eng",
                seconds: 120, maxWords: 20_000)
            #expect(read.path == .gray && read.words.count < 20, "\(read.path): \(read.words.count) words")
        }
    }

    /// The engine a reading gives back, even one its deadline stopped, reads the next page as a
    /// new engine does: nothing of a page stays in it.
    @Test func aKeptEngineReadsAsANewOne() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("transcript.pdf", LinesPDF.make([Self.lines]))
        let page = try Self.letterPage(pdf.path)
        let engines = Engines()
        let new = try OCR.read(page, ppi: 300, languages: "eng", seconds: 20, maxWords: 10_000, engines: engines)
        #expect(new.words.count > 30)
        #expect(throws: OCRError.self) { try OCR.read(page, ppi: 300, languages: "eng", seconds: 0.001, maxWords: 10_000, engines: engines) }
        let kept = try OCR.read(page, ppi: 300, languages: "eng", seconds: 20, maxWords: 10_000, engines: engines)
        #expect(kept.words == new.words)
    }

    /// A child reads what this process reads (the call carries the languages; it refuses none given).
    @Test(.timeLimit(.minutes(3))) func throughAChild() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("transcript.pdf", LinesPDF.make([Self.lines]))
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, officeSize: 1, limits: Limits(), logger: .init(label: "test"))
        let renderers = Renderers(isolation: pool)
        let isolated = try await renderers.ocr(of: pdf.path, kind: .pdf, page: 1, languages: "eng", on: Offload(reads: 1, writes: 1, renders: 2))
        #expect(isolated == (try PDFRenderer().ocr(pdf.path, page: 1, languages: "eng")))
        await #expect(throws: PreviewError.self) {
            try await renderers.ocr(of: pdf.path, kind: .pdf, page: 1, languages: "../etc", on: Offload(reads: 1, writes: 1, renders: 2))
        }
    }
}
