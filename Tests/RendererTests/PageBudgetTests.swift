import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// A page that would draw for hours stops at its budget with `timeout`, and its renderer (and its
/// open document) goes on to the next page: forms two operators long, which Poppler's own abort
/// check never sees, and forms long enough for it.
@Suite(.blocking) struct PageBudgetTests {
    @Test(arguments: [(30, 2), (10, 12)]) func aSlowPageStopsAtItsBudget(depth: Int, fanOut: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file("slow.pdf", SlowPDF.make(depth: depth, fanOut: fanOut, plainPages: 1))
        let renderer = PDFRenderer(documents: PDFDocumentCache(capacity: 1), pageSeconds: 0.5)
        #expect(try renderer.probe(file.path).pages == 2)
        let started = ContinuousClock.now
        #expect {
            _ = try renderer.render(file.path, RenderRequest(page: 1, width: 256))
        } throws: { error in
            (error as? PreviewError)?.code == .timeout && (error as? PreviewError)?.message.contains("Page 1") == true
        }
        #expect(started.duration(to: .now) < .seconds(15), "the drawing stopped soon after the budget")
        let plain = try renderer.render(file.path, RenderRequest(page: 2, width: 256))
        #expect(plain.width == 256, "the next page of the same open document renders")
    }
}
