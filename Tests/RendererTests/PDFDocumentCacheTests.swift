import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Synchronization
import Testing

@Suite(.blocking) struct PDFDocumentCacheTests {
    private let path = Fixtures.sample("document-5-pages.pdf").path

    /// A kept document draws every page with one rasteriser, whose fonts' glyph caches we widen
    /// (`splash.cc`): its pages, each drawn after others have filled those caches with their glyphs
    /// at every sub-pixel position, are the pixels a fresh rasteriser draws. The 5-page sample at
    /// 300 px, and a 23-page paper set in Type 1 fonts (pdf.js's test file) at 1024 px.
    @Test(arguments: [
        (Fixtures.sample("document-5-pages.pdf"), [1, 3, 5, 2], 300),
        (Fixtures.corpus.appendingPathComponent("files/005_pdf.js_TAMReview.pdf"), [1, 2, 3, 4, 5, 6, 1, 3], 1024)
    ])
    func cachedPagesAreTheSameBytes(file: URL, pages: [Int], width: Int) throws {
        let cached = Renderers(openDocuments: 1).pdf
        let plain = Renderers().pdf
        for page in pages {
            let request = RenderRequest(page: page, width: width)
            #expect(try cached.render(file.path, request).bytes == plain.render(file.path, request).bytes, "page \(page)")
        }
    }

    @Test func boundedAndKeyedByFileIdentity() throws {
        let cache = PDFDocumentCache(capacity: 2)
        let renderer = PDFRenderer(documents: cache)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var copies: [String] = []
        for index in 0..<3 {
            let copy = folder.url.appendingPathComponent("copy\(index).pdf")
            try FileManager.default.copyItem(at: Fixtures.sample("document-5-pages.pdf"), to: copy)
            copies.append(copy.path)
            _ = try renderer.probe(copy.path)
        }
        #expect(cache.count == 2, "the least recently used document was closed")

        // Replace a cached file's bytes: the next render parses the new file, not the cached one.
        let replaced = copies[2]
        try FileManager.default.removeItem(atPath: replaced)
        try FileManager.default.copyItem(at: Fixtures.sample("bad-encrypted.pdf"), to: URL(fileURLWithPath: replaced))
        #expect { try renderer.render(replaced, RenderRequest()) } throws: { ($0 as? PreviewError)?.code == .encrypted }
    }

    /// Poppler crashes when one document is used from several threads; the cache serialises users.
    @Test func concurrentPagesOfOneDocument() throws {
        let renderer = Renderers(openDocuments: 2).pdf
        let expected = try (1...5).map { try Renderers().pdf.render(path, RenderRequest(page: $0, width: 200)).bytes }
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let page = index % 5 + 1
            let bytes = try? renderer.render(path, RenderRequest(page: page, width: 200)).bytes
            if bytes != expected[page - 1] { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
