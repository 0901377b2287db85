import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// The benchmark set from `scripts/make-samples --large DIR`, when `DOCPREVIEW_LARGE_SAMPLES=DIR`
/// is set (not in CI: making the set takes minutes). Properties only; timings belong to benchmarks.
private let largeSamples = ProcessInfo.processInfo.environment["DOCPREVIEW_LARGE_SAMPLES"].map { URL(fileURLWithPath: $0) }

@Suite(.blocking, .enabled(if: largeSamples != nil, "set DOCPREVIEW_LARGE_SAMPLES to a make-samples --large folder"))
struct LargeSampleTests {
    let renderers = Renderers()

    private func path(_ name: String) throws -> String {
        let url = try #require(largeSamples).appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: url.path), "\(name) missing: run scripts/make-samples --large")
        return url.path
    }

    @Test(arguments: ["video-10s-1080p.mp4", "video-10min-1080p.mp4"])
    func longAndShortVideos(name: String) throws {
        let image = try renderers.video.render(path(name), .thumbnail)
        #expect((image.width, image.height) == (512, 288))
        #expect(image.facts.frameSeconds == 0)
    }

    @Test func tenMinuteVideoFitsTheUploadLimit() throws {
        let size = try FileManager.default.attributesOfItem(atPath: path("video-10min-1080p.mp4"))[.size] as? Int ?? 0
        #expect(size < Limits().maxFileBytes)
        let facts = try renderers.video.probe(path("video-10min-1080p.mp4"))
        #expect(facts.durationSeconds.map { $0 >= 600 } == true)
    }

    @Test func fourKHEVC() throws {
        let image = try renderers.video.render(path("video-4k-hevc.mov"), .preview)
        #expect((image.width, image.height) == (2048, 1152))
        #expect(image.facts.codec == "hevc")
    }

    @Test func pageFifteenHundredOfTwoThousand() throws {
        let facts = try renderers.pdf.probe(path("document-2000-pages.pdf"))
        #expect(facts.pages == 2000)
        let page = try renderers.pdf.render(path("document-2000-pages.pdf"), RenderRequest(page: 1500))
        #expect((page.width, page.height) == (1024, 1325))
    }

    @Test(arguments: [("image-24mp.jpg", 6000, 4000), ("image-100mp.jpg", 12250, 8170), ("image-24mp.png", 6000, 4000)])
    func megapixelImages(name: String, width: Int, height: Int) throws {
        let image = try renderers.image.render(path(name), .thumbnail)
        #expect((image.facts.width, image.facts.height) == (width, height))
        #expect(max(image.width, image.height) == 512)
    }
}
