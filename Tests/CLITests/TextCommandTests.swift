import Foundation
import PreviewTestSupport
import Testing

/// `docpreview text` end to end: a PDF's and an office document's text in reading order, one page
/// with its word boxes, and the contract's refusals; a stored document's text by its id, and
/// `docpreview search` finding it, once a worker's text job has read it.
@Suite(.blocking) struct TextCommandTests {
    @Test func printsThePagesTextInReadingOrder() throws {
        let all = try DocPreviewProcess.run(["text", Fixtures.sample("document-5-pages.pdf").path])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.components(separatedBy: "DocPreview sample, 5 pages").count == 6)
        #expect(all.stdout.hasPrefix("Page 1\n\nDocPreview sample, 5 pages\n\nPage 2\n"))
        let office = try DocPreviewProcess.run(["text", Fixtures.sample("office-report.docx").path])
        #expect(office.status == 0 && !office.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(office.stderr)")
    }

    @Test func onePageWithItsWordBoxes() throws {
        let result = try DocPreviewProcess.run(["text", Fixtures.sample("document-5-pages.pdf").path, "--page", "4", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let pages = try #require(result.json?["pages"] as? [[String: Any]])
        #expect(pages.count == 1 && pages[0]["page"] as? Int == 4 && pages[0]["width"] as? Double == 612)
        let words = try #require(pages[0]["words"] as? [[String: Any]])
        #expect(words.map { $0["text"] as? String } == ["Page", "4", "DocPreview", "sample,", "5", "pages"])
        let box = try #require(words.first?["box"] as? [Double])
        #expect(box.count == 4 && box[0] < box[2] && box[1] < box[3])
    }

    @Test func refusals() throws {
        let outOfRange = try DocPreviewProcess.run(["text", Fixtures.sample("document-5-pages.pdf").path, "--page", "9", "--json"])
        #expect(outOfRange.status == 3 && (outOfRange.json?["error"] as? [String: Any])?["code"] as? String == "page_out_of_range")
        let image = try DocPreviewProcess.run(["text", Fixtures.sample("image.webp").path, "--json", "--no-ocr"])
        #expect((image.json?["error"] as? [String: Any])?["code"] as? String == "unsupported_type")
        let video = try DocPreviewProcess.run(["text", Fixtures.sample("video-h264.mp4").path, "--json"])
        #expect((video.json?["error"] as? [String: Any])?["code"] as? String == "unsupported_type")
    }

    @Test func aStoredDocumentsTextAndTheSearchOfTheStore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = ["--store", folder.url.appendingPathComponent("store").path]
        let ingested = try DocPreviewProcess.run(["ingest", Fixtures.sample("document-5-pages.pdf").path, "--owner", "ana", "--json"] + store)
        let id = try #require(ingested.json?["document_id"] as? String, "\(ingested.stderr)")
        let unread = try DocPreviewProcess.run(["text", id, "--json"] + store)
        #expect(unread.status != 0 && (unread.json?["error"] as? [String: Any])?["code"] as? String == "conflict", "no text job has run")
        #expect(try DocPreviewProcess.run(["jobs", "backfill", "--json"] + store).json?["text"] as? Int == 0, "asking queued its text job")
        let worker = Process()
        worker.executableURL = DocPreviewProcess.binary
        worker.arguments = ["worker", "--concurrency", "1"] + store
        worker.standardOutput = FileHandle.nullDevice
        worker.standardError = FileHandle.nullDevice
        try worker.run()
        defer { worker.killAndWait() }
        try waitUntil("the text job to read the document", timeout: .seconds(120), interval: .milliseconds(100)) {
            try DocPreviewProcess.run(["text", id, "--page", "2"] + store).status == 0
        }
        let page = try DocPreviewProcess.run(["text", id, "--page", "2"] + store)
        #expect(page.stdout.trimmingCharacters(in: .newlines) == "Page 2\n\nDocPreview sample, 5 pages")
        let found = try DocPreviewProcess.run(["search", "SAMPLE, 5", "--owner", "ana", "--json"] + store)
        let results = try #require(found.json?["results"] as? [[String: Any]], "\(found.stderr)")
        #expect(results.count == 1 && (results[0]["document"] as? [String: Any])?["document_id"] as? String == id)
        #expect(((results[0]["hit"] as? [String: Any])?["snippet"] as? [String: Any])?["match"] as? String == "sample, 5")
        let human = try DocPreviewProcess.run(["search", "docpreview"] + store)
        #expect(human.status == 0 && human.stdout.contains("\(id)\t") && human.stdout.contains("[DocPreview]"), "\(human.stdout)")
        #expect(try DocPreviewProcess.run(["search", "ab"] + store).status != 0, "too short")
    }
}
