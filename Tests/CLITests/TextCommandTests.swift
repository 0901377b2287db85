import Foundation
import PreviewTestSupport
import Testing

/// `docpreview text` end to end: a PDF's and an office document's text in reading order, one page
/// with its word boxes, and the contract's refusals.
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
        let image = try DocPreviewProcess.run(["text", Fixtures.sample("image.webp").path, "--json"])
        #expect((image.json?["error"] as? [String: Any])?["code"] as? String == "unsupported_type")
    }
}
