import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewTestSupport
import Testing

/// Issue 70, item 3: a share with `watermark` serves nothing without it. Every address its page
/// holds (pages, picture, poster, zoom tiles, the download) answers bytes other than what the
/// owner's token gets for the same resource; the download is never the original but the document
/// rebuilt from its watermarked pages; a video's is a film with the watermark in every frame.
@Suite struct ShareWatermarkTests {
    typealias Shares = SharesTests

    /// The bytes of `uri` for the share (signed) and for the owner (the same resource by token).
    private static func bytes(_ client: some TestClientProtocol, _ uri: String, owner: Bool = false) async throws -> (HTTPResponse.Status, [UInt8]) {
        try await client.execute(uri: uri, method: .get, headers: owner ? Shares.bearer : [:]) { response in
            (response.status, Array(buffer: response.body))
        }
    }

    /// `uri` without its signature, its expiry, key and share: the owner's address of the same resource.
    private static func unsigned(_ uri: String) -> String {
        guard var parts = URLComponents(string: uri) else { return uri }
        parts.queryItems = parts.queryItems?.filter { !["exp", "kid", "sig", "share"].contains($0.name) }
        if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
        return parts.string ?? uri
    }

    /// The IIIF identifier of a `data-zoom` address without its signature (`~s…`).
    private static func unsignedZoom(_ address: String) -> String {
        address.range(of: "~s").map { String(address[..<$0.lowerBound]) } ?? address
    }

    @Test(arguments: TestBackend.available) func aWatermarkedShareServesNothingWithoutIt(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Shares.upload(client, harness, "document-5-pages.pdf")
            let made = try await Shares.share(client, id, #"{"label": "North High", "allow_download": true, "watermark": true}"#)
            let text = try #require(made["watermark"] as? String)
            #expect(text.hasPrefix("Shared with North High · "))
            #expect(try await Shares.shares(client, id).first?["watermark"] as? String == text)
            let html = try await client.execute(uri: try #require(made["url"] as? String), method: .get) { String(buffer: $0.body) }
            #expect(html.contains(text), "the page says what its pictures carry")

            // Every page's picture differs from the owner's.
            let pages = Shares.sources(html).filter { $0.contains("/preview") }
            #expect(pages.count == 5, "\(pages)")
            for page in pages {
                let (status, shared) = try await Self.bytes(client, page)
                let (ownerStatus, plain) = try await Self.bytes(client, Self.unsigned(page), owner: true)
                #expect(status == .ok && ownerStatus == .ok && !shared.isEmpty && shared != plain, "\(page)")
            }

            // Its zoom: a canonical tile and a one-off region, each unlike the owner's.
            let zoom = try #require(html.firstMatch(of: /data-zoom="([^"]+~p2[^"]*)"/).map { String($0.output.1) })
            for region in ["2048,2048,2048,2048/512,512/0/default.jpg", "1000,1500,700,700/350,/0/default.png"] {
                let (status, shared) = try await Self.bytes(client, zoom + "/" + region)
                let (ownerStatus, plain) = try await Self.bytes(client, Self.unsignedZoom(zoom) + "/" + region, owner: true)
                #expect(status == .ok && ownerStatus == .ok && shared != plain, "\(region)")
                // Kept per share: asked again, the same bytes.
                #expect(try await Self.bytes(client, zoom + "/" + region).1 == shared)
            }

            // The download: a PDF rebuilt of its five watermarked pages, no text of the original's.
            let download = try #require(
                html.firstMatch(of: /href="([^"]*download=1[^"]*)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") })
            let (status, rebuilt) = try await Self.bytes(client, download)
            let original = try Array(Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))
            #expect(status == .ok && rebuilt.starts(with: Array("%PDF-".utf8)) && rebuilt != original)
            let file = harness.folder.url.appendingPathComponent("download.pdf")
            try Data(rebuilt).write(to: file)
            let read = try await onOwnThread { try MediaTools.pdfPagesAndText(file) }
            #expect(read.pages == 5)
            #expect(!read.text.contains("Page 1") && !read.text.contains("DocPreview"), "no text layer: \(read.text.prefix(200))")
            #expect(try await Shares.shares(client, id).first?["download_count"] as? Int == 1)
            // A range of it is the whole rebuilt file, never a range of the original.
            try await client.execute(uri: download, method: .get, headers: [.range: "bytes=0-99"]) { response in
                #expect(response.status == .ok && Array(buffer: response.body) == rebuilt)
            }
            // The owner's original is untouched.
            #expect(try await Self.bytes(client, "/v1/documents/\(id)/content", owner: true).1 == original)
        }
    }

    /// A picture's download is itself, watermarked; a video's link plays, and downloads, a film of its
    /// own with the watermark in every frame, made by the playback job the share queues (its marked
    /// poster until then), and serves none of the video's own files.
    @Test func picturesAndVideos() async throws {
        let harness = try await Harness(token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let picture = try await Shares.upload(client, harness, "image.webp", title: "Photo")
            let pictureShare = try await Shares.share(client, picture, #"{"label": "Coach", "allow_download": true, "watermark": true}"#)
            let pictureHTML = try await client.execute(uri: try #require(pictureShare["url"] as? String), method: .get) { String(buffer: $0.body) }
            let download = try #require(
                pictureHTML.firstMatch(of: /href="([^"]*download=1[^"]*)"/).map {
                    String($0.output.1).replacingOccurrences(of: "&amp;", with: "&")
                })
            let (status, jpeg) = try await Self.bytes(client, download)
            #expect(status == .ok && jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
            #expect(jpeg != (try Array(Data(contentsOf: Fixtures.sample("image.webp")))))

            let video = try await Shares.upload(client, harness, "video-h264.mp4", title: "Game")
            let videoShare = try await Shares.share(client, video, #"{"label": "Coach", "allow_download": true, "watermark": true}"#)
            let shareID = try #require(videoShare["share_id"] as? String)
            let page = try #require(videoShare["url"] as? String)
            let expires = harness.clock.unixSeconds + 600
            let signed = { (file: String) in
                harness.server.signed.sign("/v1/documents/\(video)/\(file)", query: [("share", shareID)], expires: expires)
            }

            // Until the playback job has made its film: the marked poster, nothing to play or download.
            var html = try await client.execute(uri: page, method: .get) { String(buffer: $0.body) }
            #expect(!html.contains("<video") && !html.contains("download=1") && html.contains("not playable yet"))
            let poster = try #require(Shares.sources(html).first { $0.contains("/preview") })
            let (posterStatus, shared) = try await Self.bytes(client, poster)
            let plainPoster = try await Self.bytes(client, Self.unsigned(poster), owner: true).1
            #expect(posterStatus == .ok && shared != plainPoster)
            #expect(try await Self.bytes(client, signed("renditions/mp4")).0 == .notFound)
            #expect(try await Self.bytes(client, signed("content")).0 == .accepted)

            // The share queued the job; once it has run, the page plays the film with the watermark
            // burned into its frames, and downloads that film.
            try await harness.drainQueue()
            html = try await client.execute(uri: page, method: .get) { String(buffer: $0.body) }
            let film = try #require(Shares.sources(html).first { $0.contains("/renditions/mp4") }, "\(html)")
            let (filmStatus, marked) = try await Self.bytes(client, film)
            let (ownerStatus, plain) = try await Self.bytes(client, "/v1/documents/\(video)/renditions/mp4", owner: true)
            #expect(filmStatus == .ok && ownerStatus == .ok && !marked.isEmpty && marked != plain)
            let (markedFile, plainFile) = (
                harness.folder.url.appendingPathComponent("marked.mp4"), harness.folder.url.appendingPathComponent("plain.mp4")
            )
            try Data(marked).write(to: markedFile)
            try Data(plain).write(to: plainFile)
            for index in [0, 74] {
                let (markedFrame, plainFrame) = try await onOwnThread {
                    (try MediaTools.frameRGB(markedFile, index: index), try MediaTools.frameRGB(plainFile, index: index))
                }
                try #require(markedFrame.count == 640 * 360 * 3 && plainFrame.count == markedFrame.count, "frame \(index)")
                let differing = stride(from: 0, to: markedFrame.count, by: 3).filter { pixel in
                    (0..<3).contains { abs(Int(markedFrame[pixel + $0]) - Int(plainFrame[pixel + $0])) > 16 }
                }.count
                #expect(differing > 640 * 360 * 3 / 1000, "frame \(index): \(differing) pixels carry the stamp")
            }
            let filmDownload = try #require(
                html.firstMatch(of: /href="([^"]*download=1[^"]*)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") })
            #expect(try await Self.bytes(client, filmDownload) == (.ok, marked))
            try await client.execute(uri: filmDownload, method: .get, headers: [.range: "bytes=0-99"]) { response in
                #expect(response.status == .partialContent && Array(buffer: response.body) == Array(marked.prefix(100)))
            }
            // The video's own files (its thumbnails track here) are never served through the link.
            #expect(try await Self.bytes(client, "/v1/documents/\(video)/trickplay/thumbnails.vtt", owner: true).0 == .ok)
            #expect(try await Self.bytes(client, signed("trickplay/thumbnails.vtt")).0 == .notFound)
        }
    }
}
