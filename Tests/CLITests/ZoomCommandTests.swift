import Foundation
import PreviewTestSupport
import Testing

/// `docpreview zoom` and `docpreview pyramid` end to end.
@Suite(.blocking) struct ZoomCommandTests {
    @Test func aRegionOfAPageAndOfAPhotosPyramid() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let region = folder.url.appendingPathComponent("region.png").path
        let page = try DocPreviewProcess.run([
            "zoom", Fixtures.sample("document-5-pages.pdf").path, "4608,6144,512,512/max/0/default.png",
            "--page", "2", "-o", region, "--json"
        ])
        #expect(page.status == 0, "\(page.stderr)")
        #expect(page.json?["width"] as? Int == 492 && page.json?["height"] as? Int == 456, "the bottom right tile of a 600 dpi Letter page")

        let pyramid = folder.url.appendingPathComponent("photo.tif").path
        let made = try DocPreviewProcess.run(["pyramid", Fixtures.sample("photo-exif-orientation-6.jpg").path, "-o", pyramid, "--json"])
        #expect(made.status == 0 && made.json?["width"] as? Int == 480 && made.json?["height"] as? Int == 640, "upright: \(made.stdout)")
        let cut = try DocPreviewProcess.run([
            "zoom", Fixtures.sample("photo-exif-orientation-6.jpg").path, "square/100,/!90/gray.jpg",
            "--pyramid", pyramid, "-o", region, "--json"
        ])
        #expect(cut.status == 0 && cut.json?["width"] as? Int == 100 && cut.json?["height"] as? Int == 100, "\(cut.stdout) \(cut.stderr)")
    }

    @Test func refusalsUseTheContractsExitCodes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("x.jpg").path
        let cases: [(String, String, Int32, String)] = [
            ("document-5-pages.pdf", "5100,0,10,10/max/0/default.jpg", 2, "bad_request"),
            ("document-5-pages.pdf", "full/max/45/default.jpg", 2, "not_implemented"),
            ("bad-encrypted.pdf", "full/max/0/default.jpg", 4, "encrypted"),
            ("video-h264.mp4", "full/max/0/default.jpg", 3, "unsupported_type")
        ]
        for (sample, request, status, code) in cases {
            let result = try DocPreviewProcess.run(["zoom", Fixtures.sample(sample).path, request, "-o", output, "--json"])
            #expect(result.status == status, "\(sample): \(result.stdout) \(result.stderr)")
            #expect((result.json?["error"] as? [String: Any])?["code"] as? String == code, "\(sample)")
        }
    }
}
