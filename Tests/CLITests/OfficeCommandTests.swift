import Foundation
import PreviewTestSupport
import Testing

/// Office documents through the single-file commands: each converts in an office child with the
/// job's deadline, never in the command's own process.
@Suite(.blocking) struct OfficeCommandTests {
    @Test func infoCountsPagesSheetsAndSlides() throws {
        let sheet = try #require(try DocPreviewProcess.run(["info", Fixtures.sample("office-stats.xlsx").path, "--json"]).json)
        #expect(sheet["kind"] as? String == "xlsx")
        #expect(sheet["pages"] as? Int == 2 && sheet["sheets"] as? Int == 2, "\(sheet)")
        let slides = try #require(try DocPreviewProcess.run(["info", Fixtures.sample("office-slides.pptx").path, "--json"]).json)
        #expect(slides["pages"] as? Int == 2 && slides["slides"] as? Int == 2, "\(slides)")
        let transcript = try #require(try DocPreviewProcess.run(["info", Fixtures.sample("office-transcript-utf16.txt").path, "--json"]).json)
        #expect(transcript["kind"] as? String == "text" && transcript["pages"] as? Int == 3, "\(transcript)")
    }

    @Test func renderAPageOfADocument() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("p.jpg").path
        let second = try DocPreviewProcess.run(["render", Fixtures.sample("office-report.docx").path, "-o", output, "--page", "2", "--json"])
        #expect(second.status == 0, "\(second.stderr.suffix(1000))")
        #expect(second.json?["width"] as? Int == 1024)
        #expect(FileManager.default.fileExists(atPath: output))
        let third = try DocPreviewProcess.run(["render", Fixtures.sample("office-report.docx").path, "-o", output, "--page", "3", "--json"])
        #expect(third.status == 3 && (third.json?["error"] as? [String: String])?["code"] == "page_out_of_range")
    }

    @Test func ingestStoresThePivotAndTheThumbnail() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let ingest = try DocPreviewProcess.run(["ingest", Fixtures.sample("office-letter.odt").path, "--store", store, "--json"])
        #expect(ingest.status == 0, "\(ingest.stderr.suffix(1000))")
        let json = try #require(ingest.json)
        #expect(json["status"] as? String == "ok" && json["pages"] as? Int == 3)
        let id = try #require(json["document_id"] as? String)
        let page = folder.url.appendingPathComponent("page3.jpg").path
        let preview = try DocPreviewProcess.run(["preview", id, "--page", "3", "--store", store, "-o", page])
        #expect(preview.status == 0, "\(preview.stderr.suffix(1000))")
        let stats = try #require(try DocPreviewProcess.run(["stats", "--store", store, "--json"]).json)
        #expect((stats["by_kind"] as? [String: Int])?["odt"] == 1)
        #expect(stats["previews"] as? Int == 3, "the pivot, the thumbnail and page 3: \(stats)")
    }
}
