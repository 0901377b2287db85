import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// A watermark is burned into every render that asks for one: pages, pictures and posters, whole or
/// as zoom tiles, the tiles carrying the same pattern as the page they are cut from.
@Suite(.blocking) struct WatermarkRenderTests {
    let renderers = Renderers()
    static let text = Watermark.sharedWith("North High", on: Date(timeIntervalSince1970: 1_764_633_600))

    private func pixels(_ image: RenderedImage, in folder: TemporaryFolder) throws -> PixelBuffer {
        let file = folder.url.appendingPathComponent("\(UUID().uuidString).\(image.format.fileExtension)")
        try Data(image.bytes).write(to: file)
        return try VipsImageRef.header(path: file.path, load: image.format == .png ? .png : .jpeg).pixels()
    }

    /// The share of pixels of each quarter of `marked` more than 16 levels from `plain`'s in a channel.
    static func changed(_ marked: PixelBuffer, from plain: PixelBuffer) -> [Double] {
        #expect(marked.width == plain.width && marked.height == plain.height && marked.bands == plain.bands)
        guard marked.bytes.count == plain.bytes.count else { return [] }
        var counts = [0, 0, 0, 0]
        for y in 0..<marked.height {
            for x in 0..<marked.width {
                let at = (y * marked.width + x) * marked.bands
                if (0..<3).contains(where: { abs(Int(marked.bytes[at + $0]) - Int(plain.bytes[at + $0])) > 16 }) {
                    counts[(y * 2 / marked.height) * 2 + x * 2 / marked.width] += 1
                }
            }
        }
        let quarter = Double(marked.width * marked.height) / 4
        return counts.map { Double($0) / quarter }
    }

    @Test func theTextIsTheRecipientAndTheDay() {
        #expect(Self.text == "Shared with North High · 2 Dec 2025")
        let long = Watermark.sharedWith(String(repeating: "A", count: 300), on: Date())
        #expect(long.count <= Watermark.maxText && long.contains("…"))
    }

    /// Pages, pictures and a video's poster: every quarter of the render carries some of the stamp,
    /// none is covered by it, and the same request gives the same bytes.
    @Test(arguments: [
        ("document-5-pages.pdf", FileKind.pdf), ("photo-exif-orientation-6.jpg", .jpeg), ("image.webp", .webp), ("footage/bottles.mp4", .mp4)
    ])
    func everyQuarterOfARenderCarriesIt(sample: String, kind: FileKind) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let renderer = try #require(renderers.renderer(for: kind))
        let path = Fixtures.sample(sample).path
        var request = RenderRequest(width: 1024, height: 1024, format: .png)
        let plain = try renderer.render(path, request)
        request.watermark = Watermark(text: Self.text)
        let marked = try renderer.render(path, request)
        #expect((marked.width, marked.height) == (plain.width, plain.height))
        for share in Self.changed(try pixels(marked, in: folder), from: try pixels(plain, in: folder)) {
            #expect(share > 0.003 && share < 0.3, "\(sample): \(share) of a quarter changed")
        }
        #expect(try renderer.render(path, request).bytes == marked.bytes)
    }

    /// A film re-encoded with the stamp: each quarter of its frames at the start, middle and end
    /// carries some of it against the source's same frame, none is covered, no frame is lost.
    @Test func aFilmCarriesItInEveryFrame() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = Fixtures.sample("video-h264.mp4")
        let film = folder.url.appendingPathComponent("marked.mp4")
        let made = try VideoTranscoding().transcode(source.path, kind: .mp4, to: film.path, watermark: Watermark(text: Self.text))
        #expect(made.video == "encode" && (made.width, made.height) == (640, 360))
        let frames = { (file: URL) in
            try MediaTools.ffprobeValue(file, ["-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames"])
        }
        #expect(try frames(film) == frames(source))
        for index in [0, 37, 74] {
            let (plainBytes, markedBytes) = (try MediaTools.frameRGB(source, index: index), try MediaTools.frameRGB(film, index: index))
            try #require(plainBytes.count == 640 * 360 * 3 && markedBytes.count == plainBytes.count, "frame \(index)")
            let shares = Self.changed(
                PixelBuffer(width: 640, height: 360, bands: 3, bytes: markedBytes),
                from: PixelBuffer(width: 640, height: 360, bands: 3, bytes: plainBytes))
            #expect(shares.count == 4 && shares.allSatisfy { $0 > 0.003 && $0 < 0.3 }, "frame \(index): \(shares)")
        }
    }

    /// Two 512 px tiles side by side, and a region over both of them at once, carry the same stamp:
    /// what each changes of the plain pixels is what the whole region changes there.
    @Test func tilesCarryThePatternOfTheirPage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = Fixtures.sample("document-5-pages.pdf").path
        func render(_ x: Int, _ width: Int, marked: Bool) throws -> PixelBuffer {
            var request = RenderRequest(format: .png)
            request.region = ImageRegion(
                x: x, y: 1024, width: width, height: 512, outputWidth: width, outputHeight: 512, rotation: 0, mirrored: false,
                tone: .color, pageDPI: 300, fromPyramid: false)
            if marked {
                request.watermark = Watermark(text: Self.text)
                request.canvas = RenderRequest.Canvas(width: 2550, height: 3300)
            }
            return try pixels(try renderers.pdf.render(path, request), in: folder)
        }
        let whole = (plain: try render(512, 1024, marked: false), marked: try render(512, 1024, marked: true))
        var differing = 0
        var stamped = 0
        for (offset, x) in [(0, 512), (512, 1024)] {
            let tile = (plain: try render(x, 512, marked: false), marked: try render(x, 512, marked: true))
            for row in 0..<512 {
                for column in 0..<512 {
                    let inTile = (row * 512 + column) * 3
                    let inWhole = (row * 1024 + column + offset) * 3
                    let tileMark = Int(tile.marked.bytes[inTile]) - Int(tile.plain.bytes[inTile])
                    let wholeMark = Int(whole.marked.bytes[inWhole]) - Int(whole.plain.bytes[inWhole])
                    if tileMark != 0 { stamped += 1 }
                    if abs(tileMark - wholeMark) > 2 { differing += 1 }
                }
            }
        }
        #expect(stamped > 5_000, "the tiles carry the stamp")
        #expect(differing < 100, "\(differing) pixels stamped differently in the tiles than in the region")
    }

    /// A region of a picture cut from its pyramid carries it too.
    @Test func pictureTilesCarryIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = Fixtures.sample("photo-exif-orientation-6.jpg").path
        var request = RenderRequest(format: .png)
        request.region = ImageRegion(
            x: 0, y: 0, width: 480, height: 640, outputWidth: 480, outputHeight: 640, rotation: 0, mirrored: false, tone: .color,
            pageDPI: nil, fromPyramid: false)
        let image = renderers.image.reading(.jpeg)
        let plain = try pixels(try image.render(path, request), in: folder)
        request.watermark = Watermark(text: Self.text)
        request.canvas = RenderRequest.Canvas(width: 480, height: 640)
        let marked = try pixels(try image.render(path, request), in: folder)
        for share in Self.changed(marked, from: plain) { #expect(share > 0.003 && share < 0.3, "\(share) of a quarter changed") }
    }
}
