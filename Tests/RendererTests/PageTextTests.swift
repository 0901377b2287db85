import Foundation
import PreviewCore
import PreviewPoppler
import PreviewRenderers
import PreviewTestSupport
import Testing

/// A page's words come from Poppler's text layer with the boxes Poppler itself gives them
/// (`pdftotext -bbox`), in reading order, within the page budget and a bound on their number; the
/// same through a renderer child, and from an office document's pivot.
@Suite struct PageTextTests {
    /// The area two boxes share over the area they cover (1 when they are the same).
    static func overlap(_ first: [Double], _ second: [Double]) -> Double {
        let width = min(first[2], second[2]) - max(first[0], second[0])
        let height = min(first[3], second[3]) - max(first[1], second[1])
        guard width > 0, height > 0 else { return 0 }
        let area = { (box: [Double]) in (box[2] - box[0]) * (box[3] - box[1]) }
        return width * height / (area(first) + area(second) - width * height)
    }

    @Test(arguments: [0, 90, 180])
    func wordsAndBoxesAreThoseOfPopplersOwnTextOutput(rotate: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let files = [try folder.file("dense.pdf", TextPDF.make(rotate: rotate)), Fixtures.sample("document-5-pages.pdf")]
        let renderer = PDFRenderer()
        for file in files {
            let text = try renderer.text(file.path, page: 1)
            let reference = try MediaTools.pdftotextWords(file, page: 1)
            #expect(text.words.map(\.text) == reference.map(\.text), "\(file.lastPathComponent): the same words in the same order")
            let worst = zip(text.words, reference).map { Self.overlap($0.box, $1.box) }.min() ?? 0
            #expect(worst >= 0.9, "\(file.lastPathComponent) turned \(rotate): every box overlaps Poppler's (IoU \(worst))")
            #expect(!text.truncated)
        }
        let dense = try renderer.text(files[0].path, page: 1)
        let size = rotate == 90 ? (792.0, 612.0) : (612.0, 792.0)
        #expect((dense.width, dense.height) == size, "the page as displayed")
        #expect(dense.words.allSatisfy { $0.box[0] >= 0 && $0.box[1] >= 0 && $0.box[2] <= size.0 && $0.box[3] <= size.1 })
        let lines = dense.plainText.split(separator: "\n")
        #expect(lines.count == 60 && lines.first == "1. The quick brown fox jumps over the lazy dog; GPA 3.87, 40-yd 4.52 s, vertical 34.5 in.")
    }

    @Test func aPageKeepsAtMostItsBoundOfWords() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file("dense.pdf", TextPDF.make())
        let document = try PDFDocument(path: file.path)
        let bounded = try document.page(1).text(seconds: 60, maxWords: 100)
        #expect(bounded.words.count == 100 && bounded.truncated)
        #expect(bounded.words.first?.text == "1.")
        let whole = try document.page(1).text(seconds: 60, maxWords: PDFRenderer.maxWordsPerPage)
        #expect(whole.words.count > 900 && !whole.truncated)
    }

    /// Forms that would take hours to walk stop at the page budget, as a render does.
    @Test(.blocking) func aSlowPageStopsAtItsBudget() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file("slow.pdf", SlowPDF.make(depth: 30, fanOut: 2, plainPages: 1))
        let renderer = PDFRenderer(documents: PDFDocumentCache(capacity: 1), pageSeconds: 0.5)
        #expect {
            _ = try renderer.text(file.path, page: 1)
        } throws: { error in
            (error as? PreviewError)?.code == .timeout
        }
        #expect(try renderer.text(file.path, page: 2).words.isEmpty, "the next page of the same open document is read")
        #expect(throws: PreviewError.self) { try renderer.text(file.path, page: 3) }
    }

    @Test(.timeLimit(.minutes(3))) func throughAChildAndFromAnOfficePivot() async throws {
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, officeSize: 1, limits: Limits(), logger: .init(label: "test"))
        let renderers = Renderers(isolation: pool)
        let offload = Offload(reads: 1, writes: 1, renders: 2)
        let pdf = Fixtures.sample("document-5-pages.pdf")
        let isolated = try #require(try await renderers.text(of: pdf.path, kind: .pdf, pages: nil, ocr: nil, on: offload))
        #expect(isolated.count == 5)
        #expect(isolated[2] == (try PDFRenderer().text(pdf.path, page: 3)), "a child reads what this process reads")
        #expect(isolated[2].plainText == "Page 3\n\nDocPreview sample, 5 pages")
        let letter = try #require(try await renderers.text(of: Fixtures.sample("resume.docx").path, kind: .docx, pages: 1...1, ocr: nil, on: offload))
        #expect(letter.first?.plainText.contains("DocPreview sample") == true, "\(letter.first?.plainText ?? "")")
        #expect(try await renderers.text(of: Fixtures.sample("image.webp").path, kind: .webp, pages: nil, ocr: nil, on: offload) == nil)
    }
}

/// Hits marked on a page: inside each box every pixel is the plain page's multiplied by the
/// highlighter's ink, outside it the page is untouched (PNG, compared pixel by pixel).
@Suite struct HighlightTests {
    /// The packed RGB pixels of a PNG (decoded by the ffmpeg CLI).
    static func pixels(_ png: [UInt8], in folder: TemporaryFolder, name: String) throws -> [UInt8] {
        let file = try folder.file(name, png)
        return Array(try MediaTools.ffmpeg(["-i", file.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
    }

    @Test func theHitsBoxesAreMarkedAndNothingElse() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = Fixtures.sample("document-5-pages.pdf").path
        let renderer = PDFRenderer()
        // 612 px wide: a pixel is a point.
        var request = RenderRequest(page: 2, width: 612, format: .png)
        let plain = try renderer.render(pdf, request)
        let word = try #require(try renderer.text(pdf, page: 2).words.first { $0.text == "sample," })
        request.highlights = [word.box]
        let marked = try renderer.render(pdf, request)
        #expect((marked.width, marked.height) == (612, 792) && marked.bytes != plain.bytes)
        let (before, after) = (
            try Self.pixels(plain.bytes, in: folder, name: "plain.png"), try Self.pixels(marked.bytes, in: folder, name: "marked.png")
        )
        #expect(before.count == 612 * 792 * 3 && after.count == before.count)
        let (left, top) = (Int(word.box[0].rounded(.down)), Int(word.box[1].rounded(.down)))
        let (right, bottom) = (Int(word.box[2].rounded(.up)), Int(word.box[3].rounded(.up)))
        let ink = [255, 224, 64]
        var inside = 0, wrong = 0
        for y in 0..<792 {
            for x in 0..<612 {
                let at = (y * 612 + x) * 3
                let covered = x >= left && x < right && y >= top && y < bottom
                for channel in 0..<3 {
                    let expected = covered ? Int(before[at + channel]) * ink[channel] / 255 : Int(before[at + channel])
                    if Int(after[at + channel]) != expected { wrong += 1 }
                }
                if covered { inside += 1 }
            }
        }
        #expect(inside > 400 && wrong == 0, "\(wrong) channels differ from the plain page marked in the word's box alone")
    }
}
