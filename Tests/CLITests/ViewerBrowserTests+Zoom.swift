import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewTestSupport
import Testing

/// Zooming in Chromium: only the tiles in view are fetched, of a page and of a 100-megapixel photo.
extension ViewerBrowserTests {
    /// The viewer's zoom on a page of dense text, opened by a link at 600 dpi pixel (300, 700), one
    /// screen pixel to one: only the tiles in view are asked for, and what the browser shows is
    /// what `pdftoppm -r 600 -x -y -W -H` draws of that region (SSIM ≥ 0.98; the page's preview
    /// stretched to that zoom scores about 0.8).
    @Test func aPageZoomsSharplyFetchingOnlyTheTilesInView() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = folder.url.appendingPathComponent("text.pdf")
        try Data(TextPDF.make()).write(to: pdf)
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1)
        let id = try #require(
            try server.upload(Data(contentsOf: pdf), query: "owner=ana&title=letter&filename=letter.pdf").json?["document_id"] as? String)
        _ = try PlaybackServeTests.settled(server, id, needsPlayback: false)
        let viewer = "\(server.base)/ui/documents/\(id)#zoom=1@300,700,1"
        let dom = try Self.chromium(chromium, ["--window-size=1200,900", "--dump-dom", viewer], profile: folder)
        let (view, tiles) = try Self.zoomState(dom)
        #expect(view.factor == 1 && view.left == 300 && view.top == 700, "\(view)")
        #expect(tiles.count == Self.tilesInView(view, tile: 512, width: 5100, height: 6600) && !tiles.isEmpty, "\(view): \(tiles)")
        #expect(try Self.tilesServed(server) == tiles.count, "every tile asked for was in view")

        // What the browser shows, inside the part of the window the view covered, against pdftoppm.
        let screenshot = folder.url.appendingPathComponent("zoomed.png")
        _ = try Self.chromium(chromium, ["--window-size=1200,900", "--screenshot=\(screenshot.path)", viewer], profile: folder)
        let (width, height) = (1024, min(800, view.bottom - view.top))
        let shown = folder.url.appendingPathComponent("shown.png")
        try MediaTools.ffmpeg(["-i", screenshot.path, "-vf", "crop=\(width):\(height):0:0", shown.path])
        let drawn = folder.url.appendingPathComponent("drawn.png")
        try MediaTools.pdftoppmSlice(pdf, page: 1, dpi: 600, x: 300, y: 700, width: width, height: height, to: drawn)
        let similarity = try MediaTools.ssim(shown, drawn)
        #expect(similarity >= 0.98, "SSIM \(similarity)")
    }

    /// A 100-megapixel photo zoomed to a quarter of its size: the tiles come from its pyramid at
    /// scale factor 4, and only those in view are asked for.
    @Test func aHundredMegapixelPhotoZoomsFetchingOnlyTheTilesInView() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let photo = folder.url.appendingPathComponent("photo.jpg")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=12240x8160", "-frames:v", "1", "-q:v", "4", photo.path])
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1)
        let id = try #require(
            try server.upload(Data(contentsOf: photo), query: "owner=ana&title=photo&filename=photo.jpg").json?["document_id"] as? String)
        _ = try PlaybackServeTests.settled(server, id, needsPlayback: false)
        // Its pyramid is built on the first zoom request.
        let info = try server.get("/iiif/3/\(id)/info.json").json ?? [:]
        #expect(info["width"] as? Int == 12240 && (info["tiles"] as? [[String: Any]])?.first?["scaleFactors"] as? [Int] == [1, 2, 4, 8, 16, 32])
        let dom = try Self.chromium(
            chromium, ["--window-size=1200,900", "--dump-dom", "\(server.base)/ui/documents/\(id)#zoom=1@4096,2048,0.25"],
            profile: folder)
        let (view, tiles) = try Self.zoomState(dom)
        #expect(view.factor == 4 && view.left == 4096 && view.top == 2048, "\(view)")
        #expect(tiles.count == Self.tilesInView(view, tile: 512, width: 12240, height: 8160) && !tiles.isEmpty, "\(view): \(tiles)")
        #expect(tiles.allSatisfy { $0.contains(",2048,2048/512,512/0/default.jpg") }, "2048² regions at a quarter: \(tiles)")
        #expect(try Self.tilesServed(server) == tiles.count, "every tile asked for was in view")
    }

    /// The zoom overlay's view (`data-view`: left, top, right, bottom in full-size pixels, @ factor)
    /// and its tiles' URLs, from a dumped DOM.
    static func zoomState(_ dom: String) throws -> (view: (left: Int, top: Int, right: Int, bottom: Int, factor: Int), tiles: [String]) {
        let match = try #require(dom.firstMatch(of: /data-view="(\d+),(\d+),(\d+),(\d+)@(\d+)"/), "the zoom opened: \(dom.suffix(2000))")
        let view = (Int(match.output.1)!, Int(match.output.2)!, Int(match.output.3)!, Int(match.output.4)!, Int(match.output.5)!)
        let tiles = dom.matches(of: /class="zoom-tile" alt="" src="([^"]+)"/).map { String($0.output.1) }
        return (view, tiles)
    }

    /// How many tiles of `tile` × the view's factor cover its rectangle.
    static func tilesInView(_ view: (left: Int, top: Int, right: Int, bottom: Int, factor: Int), tile: Int, width: Int, height: Int) -> Int {
        let side = tile * view.factor
        let columns = (min(view.right, width) - 1) / side - view.left / side + 1
        let rows = (min(view.bottom, height) - 1) / side - view.top / side + 1
        return columns * rows
    }

    /// IIIF tiles the server has answered so far.
    static func tilesServed(_ server: ServerProcess) throws -> Int {
        let metrics = try String(contentsOf: URL(string: server.base + "/metrics")!, encoding: .utf8)
        return Int(metrics.firstMatch(of: /docpreview_iiif_images_total\{kind="tile"\} (\d+)/)?.output.1 ?? "0") ?? 0
    }
}
