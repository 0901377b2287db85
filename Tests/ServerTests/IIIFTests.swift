import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewCore
import PreviewPipeline
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// IIIF Image API 3.0 requests: parsed and checked before any work, with the API's statuses.
@Suite struct IIIFRequestTests {
    private func parse(
        _ region: String = "full", _ size: String = "max", _ rotation: String = "0", _ file: String = "default.jpg",
        width: Int = 5100, height: Int = 6600
    ) throws(IIIFImageRequest.Refusal) -> ImageRegion {
        try IIIFImageRequest(region: region, size: size, rotation: rotation, file: file, width: width, height: height).region
    }

    private func refusal(
        _ region: String = "full", _ size: String = "max", _ rotation: String = "0", _ file: String = "default.jpg",
        width: Int = 5100, height: Int = 6600
    ) -> IIIFImageRequest.Refusal? {
        do {
            _ = try parse(region, size, rotation, file, width: width, height: height)
            return nil
        } catch {
            return error
        }
    }

    private func isBad(_ refusal: IIIFImageRequest.Refusal?) -> Bool {
        if case .badRequest = refusal { return true }
        return false
    }

    @Test func regions() throws {
        let square = try parse("square", "max")
        #expect((square.x, square.y, square.width, square.height) == (0, 750, 5100, 5100))
        let pixels = try parse("100,200,300,400", "max")
        #expect((pixels.x, pixels.y, pixels.width, pixels.height) == (100, 200, 300, 400))
        // Past the right and bottom edges: clipped to the image.
        let edge = try parse("4608,6144,512,512", "max")
        #expect((edge.width, edge.height) == (492, 456))
        let percent = try parse("pct:10,50,25.5,10", "max")
        #expect((percent.x, percent.y, percent.width, percent.height) == (510, 3300, 1301, 660))
        #expect(isBad(refusal("5100,0,10,10")), "starts outside")
        #expect(isBad(refusal("0,0,0,10")), "empty")
        #expect(isBad(refusal("-1,0,10,10")) && isBad(refusal("1,2,3")) && isBad(refusal("pct:1,2,3,x")) && isBad(refusal("nonsense")))
    }

    /// A stranger's numbers at their extremes: refused or answered, never a trap (a trap is a crash of
    /// the whole server). An image's sides are bounded before any product of them is taken.
    @Test func extremeNumbersAreRefusedNotTrapped() throws {
        let side = ImageRegion.maxSide
        #expect(isBad(refusal(width: side + 1, height: 10)) && isBad(refusal(width: 10, height: Int.max)) && isBad(refusal(width: 0, height: 10)))
        for region in [
            "full", "square", "pct:0,0,1,999999999999", "pct:999999999,0,100,100", "0,0,999999999,999999999",
            "pct:0,0,100,100", "999999998,0,1,1"
        ] {
            for size in [
                "max", "^max", "^pct:999999999999", "pct:100", "^!999999999,999999999", "^999999999,", "^,999999999",
                "^999999999,999999999", "!1,1", "1,"
            ] {
                _ = refusal(region, size, width: side, height: side)
                _ = refusal(region, size, width: 612, height: side)
                _ = refusal(region, size, width: 1, height: 1)
            }
        }
        #expect(isBad(refusal("pct:0,0,1,999999999999", "max", width: 612, height: side)) == false, "a sliver of a tall page is a region")
        #expect(ImageRegion.pageSize(points: (612, 5e18), dpi: 600) == nil)
        #expect(ImageRegion.pageSize(points: (612, -5e18), dpi: 600) == nil, "found by scripts/fuzz request: a negative side trapped")
        #expect(ImageRegion.pageSize(points: (2_147_483_647, 2_147_483_647), dpi: 600) == nil)
        #expect(ImageRegion.pageSize(points: (.infinity, 1), dpi: 600) == nil && ImageRegion.pageSize(points: (.nan, 1), dpi: 600) == nil)
        #expect(ImageRegion.pageSize(points: (612, 792), dpi: 600)! == (5100, 6600))
    }

    @Test func sizes() throws {
        let width = try parse("0,0,1000,500", "250,")
        #expect((width.outputWidth, width.outputHeight) == (250, 125))
        let height = try parse("0,0,1000,500", ",100")
        #expect((height.outputWidth, height.outputHeight) == (200, 100))
        let percent = try parse("0,0,1000,500", "pct:12.5")
        #expect((percent.outputWidth, percent.outputHeight) == (125, 63))
        let confined = try parse("0,0,1000,500", "!300,300")
        #expect((confined.outputWidth, confined.outputHeight) == (300, 150))
        let distorted = try parse("0,0,1000,500", "100,400")
        #expect((distorted.outputWidth, distorted.outputHeight) == (100, 400))
        // Without ^ no size may enlarge the region; with it, it may.
        #expect(isBad(refusal("0,0,100,100", "200,")) && isBad(refusal("0,0,100,100", "pct:101")) && isBad(refusal("0,0,100,100", "!200,300")))
        let enlarged = try parse("0,0,100,100", "^!200,300")
        #expect((enlarged.outputWidth, enlarged.outputHeight) == (200, 200))
        // max fits the limits: a whole 600 dpi page is 5100×6600, answered at 3167×4096.
        let whole = try parse("full", "max")
        #expect(whole.outputHeight == 4096 && whole.outputWidth * whole.outputHeight <= IIIFLimits.maxArea)
        // An explicit size over maxWidth or maxArea is refused, as info.json says.
        #expect(isBad(refusal("full", "4097,")) && isBad(refusal("full", "^5000,5000")))
        #expect(isBad(refusal("full", "0,")) && isBad(refusal("full", "w,h")) && isBad(refusal("full", "!100")) && isBad(refusal("full", "full")))
    }

    @Test func rotationsQualitiesAndFormats() throws {
        let turned = try parse("full", "100,", "!90", "gray.png")
        #expect(turned.rotation == 90 && turned.mirrored && turned.tone == .gray && turned.outputWidth == 100)
        #expect(try parse("full", "100,", "360").rotation == 0)
        #expect(refusal("full", "100,", "45") == .notImplemented("Only rotations by quarter turns are made."))
        #expect(isBad(refusal("full", "100,", "-90")) && isBad(refusal("full", "100,", "400")) && isBad(refusal("full", "100,", "abc")))
        #expect(try parse("full", "100,", "0", "bitonal.webp").tone == .bitonal)
        #expect(isBad(refusal("full", "100,", "0", "sepia.jpg")) && isBad(refusal("full", "100,", "0", "default.xyz")))
        if case .notImplemented = refusal("full", "100,", "0", "default.tif") {} else { Issue.record("tif is a format we do not make") }
    }

    /// Only the grid's tiles at their scale factor's size are kept: edges included, anything else not.
    @Test func canonicalTiles() throws {
        func canonical(_ region: String, _ size: String, _ rotation: String = "0", _ file: String = "default.jpg") throws -> Bool {
            try IIIFImageRequest(region: region, size: size, rotation: rotation, file: file, width: 5100, height: 6600)
                .isCanonicalTile(width: 5100, height: 6600)
        }
        #expect(try canonical("0,0,512,512", "512,512"))
        #expect(try canonical("4608,6144,492,456", "492,456"), "the bottom right tile")
        #expect(try canonical("4096,4096,1004,1024", "502,512"), "an edge tile at scale factor 2")
        #expect(try !canonical("0,0,512,512", "256,256"), "not its factor's size")
        #expect(try !canonical("100,0,512,512", "512,512"), "off the grid")
        #expect(try canonical("0,0,512,512", "512,512", "0", "default.png"), "a page's tiles in PNG")
        #expect(
            try !canonical("0,0,512,512", "512,512", "90") && !canonical("0,0,512,512", "512,512", "0", "gray.jpg")
                && !canonical("0,0,512,512", "512,512", "0", "default.webp"))
        #expect(IIIFLimits.scaleFactors(width: 5100, height: 6600) == [1, 2, 4, 8, 16])
    }

    @Test func identifiers() {
        let plain = IIIFService.Identifier("abc")
        #expect(plain?.document == "abc" && plain?.version == nil && plain?.page == nil)
        let full = IIIFService.Identifier("abc~v2~p10")
        #expect(full?.document == "abc" && full?.version == 2 && full?.page == 10)
        #expect(IIIFService.Identifier("abc~p3")?.page == 3)
        for bad in ["", "~p1", "abc~p0", "abc~p", "abc~q1", "abc~p1~v2", "abc~p1~p2", "abc~p-1", "abc~v1~p1~p1"] {
            #expect(IIIFService.Identifier(bad) == nil, "\(bad)")
        }
    }
}
