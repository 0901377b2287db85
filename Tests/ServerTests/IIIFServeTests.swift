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
