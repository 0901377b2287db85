import Foundation
import PreviewTestSupport
import Testing

/// A long scan's text job (OCR of every page, a page a call) holds one worker slot and one renderer
/// child a page at a time: another owner's upload, made while it runs, gets its thumbnail while it
/// still runs — the first slot takes previews only, and a child is free again after one page's
/// budget at most.
@Suite(.blocking) struct TextFairnessTests {
    @Test(.timeLimit(.minutes(10))) func aLongScanDoesNotHoldBackAnotherOwnersThumbnail() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let typed = try folder.file("typed.pdf", LinesPDF.make([Fixtures.transcriptLines]))
        let page = folder.url.appendingPathComponent("page.jpg").path
        let rendered = try DocPreviewProcess.run(["render", typed.path, "-o", page, "--format", "jpeg", "--width", "1275", "--json"])
        let (width, height) = (try #require(rendered.json?["width"] as? Int), try #require(rendered.json?["height"] as? Int))
        let jpeg = try FileHandle(forReadingFrom: URL(fileURLWithPath: page)).readToEnd() ?? Data()
        let scan = Data(ScanPDF.make(jpeg: [UInt8](jpeg), width: width, height: height, pages: 2_000))
        let store = folder.url.appendingPathComponent("store").path
        let server = try ServerProcess(store: store, workers: 2)

        let scanned = try #require(server.upload(scan, query: "filename=scan.pdf&owner=ana").json?["document_id"] as? String)
        func textJob() throws -> [String: Any]? {
            let listed = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"]).stdout
            return (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])?
                .first { $0["kind"] as? String == "text" && $0["document_id"] as? String == scanned }
        }
        try waitUntil("the scan's text job to run", timeout: .seconds(300), interval: .milliseconds(100)) {
            try textJob()?["status"] as? String == "processing"
        }
        let other = try #require(server.upload(try FileHandle(forReadingFrom: Fixtures.sample("document-5-pages.pdf")).readToEnd() ?? Data(),
                                               query: "filename=letter.pdf&owner=ben").json?["document_id"] as? String)
        let thumbnail = try server.document(other)
        #expect(thumbnail["status"] as? String == "done")
        #expect(try textJob()?["status"] as? String == "processing", "the other owner's thumbnail did not wait for the scan's words")
    }
}
