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

/// The IIIF routes over a served store: information, tiles kept and others not, the API's errors.
@Suite struct IIIFServeTests {
    private func upload(_ client: any TestClientProtocol, _ name: String) async throws -> String {
        try await client.execute(uri: "/v1/documents?filename=\(name)&title=\(name)", method: .post, body: try sample(name)) { response in
            try #require(try json(response)["document_id"] as? String)
        }
    }

    @Test func informationAndTilesOfAPage() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await upload(client, "document-5-pages.pdf")
            try await harness.drainQueue()
            let info = try await client.execute(uri: "/iiif/3/\(id)~p2/info.json", method: .get) { response in
                #expect(response.status == .ok && response.headers[.accessControlAllowOrigin] == "*")
                return try json(response)
            }
            #expect(info["width"] as? Int == 5100 && info["height"] as? Int == 6600 && info["profile"] as? String == "level2")
            #expect((info["id"] as? String)?.hasSuffix("/iiif/3/\(id)~p2") == true && info["type"] as? String == "ImageService3")
            #expect(info["maxArea"] as? Int == 4096 * 4096)
            let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
            #expect(tiles["width"] as? Int == 512 && tiles["scaleFactors"] as? [Int] == [1, 2, 4, 8, 16])

            // A tile: kept, so asked again with its ETag it is not sent again.
            let tile = "/iiif/3/\(id)~p2/4608,6144,492,456/492,456/0/default.jpg"
            let etag = try await client.execute(uri: tile, method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "private, no-cache", "the latest version may change")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: tile, method: .get, headers: [.ifNoneMatch: etag]) { #expect($0.status == .notModified) }
            let document = try await harness.server.documents.document(id: id)
            let zoom = try await harness.pipeline.zoomSource(of: document, page: 2, dpi: 600)
            let kept = ImageRegion(x: 4608, y: 6144, width: 492, height: 456, outputWidth: 492, outputHeight: 456)
            #expect(try await harness.pipeline.cachedZoom(zoom, kept, format: .jpeg) != nil)
            // Another region is rendered for its answer only.
            try await client.execute(uri: "/iiif/3/\(id)~p2/100,100,700,700/350,/90/gray.png", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/png")
            }
            let oneOff = ImageRegion(x: 100, y: 100, width: 700, height: 700, outputWidth: 350, outputHeight: 350, rotation: 90, tone: .gray)
            #expect(try await harness.pipeline.cachedZoom(zoom, oneOff, format: .png) == nil)
            // A version's images never change: kept for a year.
            try await client.execute(uri: "/iiif/3/\(id)~v1~p2/0,0,512,512/512,512/0/default.jpg", method: .get) { response in
                #expect(response.status == .ok && response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            }
            try await client.execute(uri: "/iiif/3/\(id)~p2", method: .get) { response in
                #expect(response.status == .seeOther && response.headers[.location] == "/iiif/3/\(id)~p2/info.json")
            }
        }
    }

    @Test func refusalsHaveTheAPIStatuses() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let pdf = try await upload(client, "document-5-pages.pdf")
            let encrypted = try await upload(client, "bad-encrypted.pdf")
            let image = try await upload(client, "image.webp")
            try await harness.drainQueue()
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("/iiif/3/\(pdf)~p1/5100,0,10,10/max/0/default.jpg", .badRequest, "bad_request"),  // outside the page
                ("/iiif/3/\(pdf)~p1/full/^5000,5000/0/default.jpg", .badRequest, "bad_request"),  // over maxArea
                ("/iiif/3/\(pdf)~p1/full/100,/45/default.jpg", .notImplemented, "not_implemented"),
                ("/iiif/3/\(pdf)~p1/full/100,/0/sepia.jpg", .badRequest, "bad_request"),
                ("/iiif/3/\(pdf)~p6/info.json", .unprocessableContent, "page_out_of_range"),
                ("/iiif/3/\(pdf)/info.json", .unprocessableContent, "page_out_of_range"),  // a page must be named
                ("/iiif/3/\(image)~p1/info.json", .unprocessableContent, "page_out_of_range"),
                ("/iiif/3/\(encrypted)~p1/info.json", .unprocessableContent, "encrypted"),
                ("/iiif/3/\(pdf)~v9~p1/info.json", .notFound, "not_found"),
                ("/iiif/3/no-such-document/info.json", .notFound, "not_found"),
                ("/iiif/3/\(pdf)~x1/info.json", .notFound, "not_found")
            ]
            for (uri, status, code) in cases {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    let answered = try errorCode(response)
                    #expect(answered == code, "\(uri)")
                }
            }
        }
    }

    /// PDFs whose page boxes are absurd (the held-out attack: 2147483647 pt square, 612 × 5e18 pt)
    /// are stored like any PDF; their zoom is refused with `too_many_pixels`, and the server lives on
    /// (in process here: a trap would end the test run).
    @Test func absurdPageBoxesAreRefusedNotTrapped() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            var ids: [String] = []
            for (index, box) in ["0 0 2147483647 2147483647", "0 0 612 5000000000000000000", "0 0 612 2147483647"].enumerated() {
                let pdf = PDFWriter.document([
                    "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                    "<< /Type /Page /Parent 2 0 R /MediaBox [\(box)] >>"
                ])
                ids.append(
                    try await client.execute(uri: "/v1/documents?filename=box\(index).pdf", method: .post, body: ByteBuffer(bytes: pdf)) {
                        try #require(try json($0)["document_id"] as? String)
                    })
            }
            try await harness.drainQueue()
            for id in ids {
                for uri in [
                    "/iiif/3/\(id)~p1/info.json", "/iiif/3/\(id)~p1/full/max/0/default.jpg",
                    "/iiif/3/\(id)~p1/pct:0,0,1,999999999999/max/0/default.jpg"
                ] {
                    try await client.execute(uri: uri, method: .get) { response in
                        #expect(response.status == .unprocessableContent, "\(uri)")
                        let code = try errorCode(response)
                        #expect(code == "too_many_pixels", "\(uri)")
                    }
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// An image's regions come from its pyramid once it is larger than two tiles; a video's from its
    /// poster frame.
    @Test func picturesOfImagesAndVideos() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let photo = try await upload(client, "photo-exif-orientation-6.jpg")
            let video = try await upload(client, "video-rotated-90.mp4")
            try await harness.drainQueue()
            let info = try await client.execute(uri: "/iiif/3/\(photo)/info.json", method: .get) { try json($0) }
            #expect(info["width"] as? Int == 480 && info["height"] as? Int == 640, "upright")
            try await client.execute(uri: "/iiif/3/\(photo)/full/240,/!90/gray.webp", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/webp")
            }
            let poster = try await client.execute(uri: "/iiif/3/\(video)/info.json", method: .get) { try json($0) }
            #expect(poster["width"] as? Int == 360 && poster["height"] as? Int == 640, "the poster frame as displayed")
            try await client.execute(uri: "/iiif/3/\(video)/0,0,360,512/180,/0/default.jpg", method: .get) { response in
                #expect(response.status == .ok && response.body.readableBytes > 1000)
            }
        }
    }
}

/// A signed IIIF identifier: a zoom client reads the image's information and tiles without the
/// token until it expires, and nothing else; a changed or expired signature is refused.
@Suite struct SignedIIIFTests {
    static let token = "correct-horse-battery-staple"
    static let key = (id: "k1", secret: String(repeating: "c", count: 40))

    @Test func aSignedIdentifierReadsItsImageOnly() async throws {
        let keys = try SigningKeys([Self.key])
        let harness = try await Harness(token: Self.token, signingKeys: keys)
        defer { harness.folder.remove() }
        let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=a.pdf&title=A", method: .post, headers: bearer,
                body: try sample("document-5-pages.pdf")
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()
            let links = try await client.execute(uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: bearer) { try json($0) }
            let pages = try #require(links["iiif_pages"] as? [String])
            #expect(pages.count == 5 && links["iiif"] == nil)
            let info = pages[1]
            #expect(info.hasPrefix("/iiif/3/\(id)~v1~p2~s") && info.hasSuffix("/info.json"))
            let identifier = try await client.execute(uri: info, method: .get) { response in
                #expect(response.status == .ok)
                return try #require(try json(response)["id"] as? String)
            }
            #expect(identifier.hasSuffix(String(info.dropLast("/info.json".count))), "the tiles' URLs carry the signature")
            let base = String(info.dropLast("/info.json".count))
            try await client.execute(uri: base + "/0,0,512,512/512,512/0/default.jpg", method: .get) { #expect($0.status == .ok) }
            // Unsigned, another page, a changed signature, an expired one: refused.
            try await client.execute(uri: "/iiif/3/\(id)~v1~p2/info.json", method: .get) { #expect($0.status == .unauthorized) }
            let otherPage = base.replacingOccurrences(of: "~p2~", with: "~p3~")
            try await client.execute(uri: otherPage + "/info.json", method: .get) { #expect($0.status == .forbidden) }
            let changed = String(base.dropLast()) + (base.last == "A" ? "B" : "A")
            try await client.execute(uri: changed + "/info.json", method: .get) { #expect($0.status == .forbidden) }
            let expired = SignedURLs(keys: keys).iiifPath("\(id)~v1~p2", expires: harness.clock.unixSeconds - 1)
            try await client.execute(uri: "\(expired)/info.json", method: .get) { #expect($0.status == .forbidden) }
            // The signature reads; it writes nothing and reaches no other route.
            try await client.execute(uri: "/v1/documents/\(id)/content?iiif=\(base)", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    /// A share's page zooms through identifiers signed for its share: they work while the share
    /// does, and revoking it stops them (410) like the rest of its page.
    @Test func aSharesZoomEndsWithTheShare() async throws {
        let harness = try await Harness(token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await SharesTests.upload(client, harness, "document-5-pages.pdf")
            let made = try await SharesTests.share(client, id, #"{"label": "State University"}"#)
            let shareID = try #require(made["share_id"] as? String)
            let page = try await client.execute(uri: try #require(made["url"] as? String), method: .get) { String(buffer: $0.body) }
            let zooms = page.matches(of: /data-zoom="([^"]+)"/).map { String($0.output.1) }
            #expect(zooms.count == 5 && zooms.allSatisfy { $0.contains("~v1~p") && $0.contains(".\(shareID).") }, "\(zooms)")
            let info = try #require(zooms.first) + "/info.json"
            try await client.execute(uri: info, method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: SharesTests.bearer) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: info, method: .get) { #expect($0.status == .gone) }
        }
    }
}
