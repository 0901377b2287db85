import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewPipeline
import PreviewPoppler
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Issue 67: a 1,000-page scan's text job is bounded — it stops at its document's time
/// (``DocumentPipeline/textJobsPerDocument`` jobs' time), keeps the pages it read and says the
/// rest were left (`truncated`), never reading on for the hour its pages would take.
@Suite struct LongScanTextTests {
    @Test func aThousandPageScanStopsAtItsDocumentsTime() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await TestBackend.sqlite.open(root: folder.url.appendingPathComponent("store")).store
        let typed = try folder.file("typed.pdf", LinesPDF.make([Fixtures.transcriptLines]))
        let (width, height) = (850, 1100)  // 100 pixels an inch: small, and still words to read
        let page = try PDFDocument(path: typed.path).page(1).withPixels(width: width, height: height, seconds: 20) { rgb in
            PixelBuffer(width: width, height: height, bands: 3, bytes: Array(rgb))
        }
        let jpeg = try Encoding.encode(page, rotation: 0, RenderRequest(format: .jpeg)).bytes
        let scan = try folder.file("scan.pdf", ScanPDF.make(jpeg: jpeg, width: width, height: height, pages: 1_000))
        let limits = Limits()
        // A page's reading takes a job's time on this clock (each page asks it once): the document's
        // time runs out after textJobsPerDocument pages, on any machine. (A page's own budget is
        // still the machine's time: on a busy machine one may be listed as unread.)
        let clock = SteppingClock(step: .seconds(limits.jobSeconds))
        let pipeline = DocumentPipeline(
            store: store, configuration: Configuration(limits: limits), offload: .forTests, clock: clock,
            logger: Logger(label: "test"))
        let ingested = await pipeline.ingest(scan, labels: DocumentLabels(title: "scan", filename: "scan.pdf"))
        let id = try #require(ingested.documentID)
        let document = try #require(try await store.index.document(id: id))
        #expect(document.pages == 1_000)

        let outcome = await pipeline.textOutcome(of: document)
        #expect(outcome.error == nil, "the pages read are kept: \(String(describing: outcome.error))")
        let derivative = try #require(outcome.derivatives.first)
        let pages = derivative.pages
        let allowed = Int(DocumentPipeline.textJobsPerDocument)
        #expect((1...allowed).contains(pages.count), "stopped at the document's time: \(pages.count) pages read")
        let text = try JSONDecoder().decode(DocumentText.self, from: Data(try await store.blobs.read(derivative.record.resultSha256)))
        #expect(text.truncated && text.pageCount == pages.count, "says the rest were left")
        let read = pages.filter { !text.unreadPages.contains($0.page) }
        #expect(read.allSatisfy { $0.ocrPath != nil && $0.plainText.contains("Chemistry") }, "the pages read are OCR's words")
    }
}
