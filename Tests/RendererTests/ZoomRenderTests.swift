import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// Regions of pages drawn from their vectors, and regions of pictures cut from their pyramid:
/// the same pixels the peer tools make of the same region, turned, mirrored and grayed as asked.
@Suite(.blocking) struct ZoomRenderTests {
    let renderers = Renderers()

    private func region(
        _ x: Int, _ y: Int, _ width: Int, _ height: Int, out: (Int, Int), rotation: Int = 0, mirrored: Bool = false,
        tone: ImageRegion.Tone = .color, dpi: Int? = nil, pyramid: Bool = false, page: Int = 1,
        format: RenderRequest.Format = .png
    ) -> RenderRequest {
        var request = RenderRequest(page: page, format: format, quality: 90)
        request.region = ImageRegion(
            x: x, y: y, width: width, height: height, outputWidth: out.0, outputHeight: out.1, rotation: rotation,
            mirrored: mirrored, tone: tone, pageDPI: dpi, fromPyramid: pyramid)
        return request
    }

    private func pixels(_ image: RenderedImage, in folder: TemporaryFolder) throws -> PixelBuffer {
        let file = folder.url.appendingPathComponent("\(UUID().uuidString).\(image.format.fileExtension)")
        try Data(image.bytes).write(to: file)
        return try VipsImageRef.header(path: file.path, load: image.format == .png ? .png : .jpeg).pixels()
    }

    /// A 1024² slice of a text page at 600 dpi, and a 2048² region of it at half scale, against
    /// `pdftoppm -r -x -y -W -H` of the same pixels.
    @Test(arguments: [(dpi: 600, factor: 1), (dpi: 600, factor: 2)])
    func aPageRegionIsWhatPdftoppmDrawsOfIt(dpi: Int, factor: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = folder.url.appendingPathComponent("text.pdf")
        try Data(TextPDF.make()).write(to: pdf)
        let (x, y, side) = (1024, 1536, 1024 * factor)
        let ours = try renderers.pdf.render(pdf.path, region(x, y, side, side, out: (1024, 1024), dpi: dpi))
        #expect(ours.width == 1024 && ours.height == 1024)
        let oursFile = folder.url.appendingPathComponent("ours.png")
        try Data(ours.bytes).write(to: oursFile)
        let peerFile = folder.url.appendingPathComponent("peer.png")
        try MediaTools.pdftoppmSlice(pdf, page: 1, dpi: dpi / factor, x: x / factor, y: y / factor, width: 1024, height: 1024, to: peerFile)
        let similarity = try MediaTools.ssim(oursFile, peerFile)
        #expect(similarity >= 0.98, "SSIM \(similarity)")
    }

    /// The last column and row of tiles are as wide and high as what is left of the page.
    @Test func edgeTilesOfAPageAreCutToThePage() throws {
        let path = Fixtures.sample("document-5-pages.pdf").path
        // Letter at 600 dpi is 5100×6600: the last 512 px tile column starts at 4608 and is 492 wide.
        let right = try renderers.pdf.render(path, region(4608, 0, 492, 512, out: (492, 512), dpi: 600))
        #expect((right.width, right.height) == (492, 512))
        let corner = try renderers.pdf.render(path, region(4096, 6144, 1004, 456, out: (502, 228), dpi: 600))
        #expect((corner.width, corner.height) == (502, 228))
    }

    @Test func pagesOfAnEncryptedOrBrokenPDFSayWhy() throws {
        let request = region(0, 0, 512, 512, out: (512, 512), dpi: 600)
        #expect { try renderers.pdf.render(Fixtures.sample("bad-encrypted.pdf").path, request) } throws: {
            ($0 as? PreviewError)?.code == .encrypted
        }
        #expect { try renderers.pdf.render(Fixtures.sample("bad-empty.pdf").path, request) } throws: {
            ($0 as? PreviewError)?.code == .corrupt
        }
        #expect {
            try renderers.pdf.render(Fixtures.sample("document-5-pages.pdf").path, region(0, 0, 512, 512, out: (512, 512), dpi: 600, page: 6))
        } throws: { ($0 as? PreviewError)?.code == .pageOutOfRange }
    }

    /// An EXIF-rotated photo (orientation 6: stored 640×480, shown 480×640) is cut upright; turning
    /// and mirroring move its pixels where they belong.
    @Test func regionsOfARotatedPhotoTurnAndMirror() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = Fixtures.sample("photo-exif-orientation-6.jpg").path
        let image = renderers.image.reading(.jpeg)
        let upright = try pixels(try image.render(path, region(0, 0, 480, 640, out: (480, 640))), in: folder)
        #expect((upright.width, upright.height) == (480, 640))
        let turned = try pixels(try image.render(path, region(0, 0, 480, 640, out: (480, 640), rotation: 90)), in: folder)
        #expect((turned.width, turned.height) == (640, 480))
        let mirrored = try pixels(try image.render(path, region(0, 0, 480, 640, out: (480, 640), mirrored: true)), in: folder)
        let both = try pixels(try image.render(path, region(0, 0, 480, 640, out: (480, 640), rotation: 180, mirrored: true)), in: folder)
        func pixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
            let i = (y * buffer.width + x) * buffer.bands
            return (0..<3).map { Int(buffer.bytes[i + $0]) }
        }
        func close(_ a: [Int], _ b: [Int]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= 12 } }
        for (x, y) in [(40, 60), (400, 100), (100, 600), (240, 320)] {
            // Turned clockwise: (x, y) goes to (height - 1 - y, x).
            #expect(close(pixel(upright, x, y), pixel(turned, 639 - y, x)), "turned at \(x),\(y)")
            #expect(close(pixel(upright, x, y), pixel(mirrored, 479 - x, y)), "mirrored at \(x),\(y)")
            // Mirrored, then half a turn: upside down.
            #expect(close(pixel(upright, x, y), pixel(both, x, 639 - y)), "mirrored and turned at \(x),\(y)")
        }
    }

    @Test(arguments: [ImageRegion.Tone.gray, .bitonal])
    func grayAndBitonalHaveNoColour(tone: ImageRegion.Tone) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cases: [(any Renderer, String, Int?)] = [
            (renderers.image.reading(.jpeg), Fixtures.sample("photo-exif-orientation-6.jpg").path, nil),
            (renderers.pdf, Fixtures.sample("document-5-pages.pdf").path, 150)
        ]
        for (renderer, path, dpi) in cases {
            let image = try pixels(try renderer.render(path, region(0, 0, 400, 400, out: (200, 200), tone: tone, dpi: dpi)), in: folder)
            let values: [[UInt8]] = stride(from: 0, to: image.bytes.count, by: image.bands).map { i -> [UInt8] in
                image.bands >= 3 ? Array(image.bytes[i..<i + 3]) : [image.bytes[i]]
            }
            #expect(values.allSatisfy { Set($0).count == 1 }, "\(path): gray")
            if tone == .bitonal { #expect(values.allSatisfy { $0[0] == 0 || $0[0] == 255 }, "\(path): black and white") }
        }
    }

    /// A pyramid's regions match the same regions cut from the image itself, at every level, to
    /// the last partial tile at the right and bottom edges. In luma: the pyramid's JPEG tiles
    /// subsample chroma, which this test pattern's saturated edges show and photographs do not.
    @Test func pyramidRegionsMatchTheImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.url.appendingPathComponent("photo.png")
        // 3000×2000 of smooth gradients and sharp edges (ffmpeg's test pattern), lossless.
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=3000x2000", "-frames:v", "1", source.path])
        let pyramid = folder.url.appendingPathComponent("pyramid.tif")
        let facts = try renderers.image.reading(.png).writePyramid(source.path, to: pyramid.path)
        #expect((facts.width, facts.height) == (3000, 2000))
        let levels = try VipsImageRef.tiffPage(path: pyramid.path, page: 0).pageCount
        #expect(levels >= 4, "levels halve down to a tile")
        for (x, y, w, h, out) in [
            (0, 0, 512, 512, (512, 512)), (2560, 1536, 440, 464, (440, 464)), (2048, 0, 952, 2000, (238, 500)),
            (0, 0, 3000, 2000, (375, 250))
        ] {
            let fromPyramid = try renderers.image.reading(.tiff).render(pyramid.path, region(x, y, w, h, out: out, pyramid: true))
            let direct = try renderers.image.reading(.png).render(source.path, region(x, y, w, h, out: out))
            #expect((fromPyramid.width, fromPyramid.height) == out && (direct.width, direct.height) == out)
            let (a, b) = (folder.url.appendingPathComponent("a.png"), folder.url.appendingPathComponent("b.png"))
            try Data(fromPyramid.bytes).write(to: a)
            try Data(direct.bytes).write(to: b)
            let similarity = try MediaTools.ssim(a, b, luma: true)
            #expect(similarity >= 0.98, "region \(x),\(y),\(w),\(h) → \(out): SSIM \(similarity)")
        }
    }

    /// A PNG cut short (found by the image fuzzer): libvips 8.14's pyramid writer crashed when its
    /// input failed halfway; its missing rows are filled instead, and the pyramid is written.
    @Test func aTruncatedImagesPyramidIsWritten() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("pyramid.tif")
        let truncated = Fixtures.packageRoot.appendingPathComponent("Fuzz/regressions/truncated-png-pyramid.png").path
        let facts = try renderers.image.reading(.png).writePyramid(truncated, to: output.path)
        #expect((facts.width, facts.height) == (640, 480))
        #expect(try VipsImageRef.tiffPage(path: output.path, page: 0).width == 640)
    }

    @Test func aPyramidIsRefusedOverThePixelLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var limits = Limits()
        limits.maxPixels = 100_000  // the photo is 640×480
        let output = folder.url.appendingPathComponent("pyramid.tif")
        #expect {
            try ImageRenderer(limits: limits).reading(.jpeg).writePyramid(Fixtures.sample("photo-exif-orientation-6.jpg").path, to: output.path)
        } throws: { ($0 as? PreviewError)?.code == .tooManyPixels }
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing decoded, nothing written")
    }
}
