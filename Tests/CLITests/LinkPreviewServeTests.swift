import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewTestSupport
import Testing

/// `POST|GET /v1/links/preview` end to end: a real `serve`, its fetch children and `yt-dlp`, against
/// the loopback test site on 127.0.0.1 to 127.0.0.5 (its addresses standing for X, Instagram,
/// TikTok and YouTube by the configuration), with `--allow-private-fetch` naming that site's port
/// on those addresses only. The redirects and pictures that point inside name the server's own
/// port: what an attacker would want reached, and what is refused before any connection.
@Suite(.blocking, .serialized) struct LinkPreviewServeTests {
    struct Setup {
        let folder: TemporaryFolder
        let site: LinkTestSite
        let server: ServerProcess

        init() throws {
            folder = try TemporaryFolder()
            let port = LoopbackPort.free()
            site = try LinkTestSite(otherPort: port)
            let config = folder.url.appendingPathComponent("config.json")
            try JSONSerialization.data(withJSONObject: ["links": site.linksConfiguration(fetchSeconds: 10)]).write(to: config)
            server = try ServerProcess(
                store: folder.url.appendingPathComponent("store").path, workers: 1,
                extra: ["--config", config.path] + site.addresses.flatMap { ["--allow-private-fetch", $0] },
                environment: ["DOCPREVIEW_YT_DLP": LinkTestSite.extractor], port: port)
        }

        func remove() {
            server.process.terminate()
            site.stop()
            folder.remove()
        }

        /// `POST /v1/links/preview {"url", "owner"}`.
        func card(_ url: String, owner: String? = nil) throws -> (status: Int, json: [String: Any]?) {
            var request = URLRequest(url: URL(string: server.base + "/v1/links/preview")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: ["url": url].merging(owner.map { ["owner": $0] } ?? [:]) { $1 })
            return try ServerProcess.send(server.authorized(request))
        }

        /// The card's picture, fetched by its signed URL alone: its bytes, which must be an image's.
        func picture(_ card: [String: Any]) throws -> Data? {
            guard let media = card["media"] as? [[String: Any]], let address = media.first?["thumbnail"] as? String else { return nil }
            #expect(address.contains("sig="), "a signed URL of ours: \(address)")
            let (data, response) = try PlaybackServeTests.fetch(URLRequest(url: URL(string: server.base + address)!))
            #expect(response.statusCode == 200 && response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("image/") == true)
            return data
        }
    }

    /// Bytes that begin as a JPEG, PNG or WebP file does.
    static func isImage(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0xD8, 0xFF]) || data.starts(with: [0x89, 0x50, 0x4E, 0x47]) || data.prefix(12).suffix(4) == Data("WEBP".utf8)
    }

    @Test func everyPlatformsCardHasWhatItsPageHolds() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let site = setup.site
        typealias Check = ([String: Any]) -> Void
        let author = { (card: [String: Any]) in card["author"] as? [String: String] ?? [:] }
        let media = { (card: [String: Any]) in (card["media"] as? [[String: Any]])?.first ?? [:] }
        let cases: [(url: String, kind: String, title: String, picture: Bool, check: Check)] = [
            (
                site.url("coach/status/1850000000000000001", on: .x), "post", "Coach Rivera on Twitter", true,
                { card in
                    #expect(author(card) == ["name": "Coach Rivera", "handle": "@coachrivera"])
                    #expect(media(card)["width"] as? Int == 1920 && media(card)["type"] as? String == "image", "the embed data's photo")
                    #expect((card["text"] as? String)?.hasPrefix("Great workout with the 2027 class.") == true)
                    #expect(card["published_at"] as? String == "2026-11-03" && card["source"] as? String == "oembed")
                }
            ),
            (
                site.url("p/CzSigned1/", on: .instagram), "post", "Jordan Lee on Instagram: \"Signed with State! #committed\"", true,
                { card in
                    #expect(author(card) == ["name": "Jordan Lee", "handle": "@jordanlee27"])
                    #expect((card["text"] as? String)?.contains("1,204 likes") == true)
                }
            ),
            (
                site.url("@coachdrills/video/7300000000000000000", on: .tiktok), "video", "Footwork drills for DBs #football", true,
                { card in #expect(author(card) == ["name": "Coach Drills", "handle": "@coachdrills"] && card["source"] as? String == "oembed") }
            ),
            (
                site.url("watch?v=hl2026", on: .youtube), "video", "Senior highlights 2026", true,
                { card in
                    #expect(card["text"] as? String == "Every snap of the 2026 season, QB #7." && author(card)["name"] == "Lakeside Football")
                    #expect(
                        media(card)["duration"] as? Double == 192 && media(card)["width"] as? Int == 1280 && media(card)["type"] as? String == "video"
                    )
                    #expect(card["source"] as? String == "opengraph")
                }
            ),
            (
                site.url("news/signing-day"), "article", "Signing day: 14 seniors commit", true,
                { card in
                    #expect(author(card) == ["name": "Dana Ortiz"] && card["published_at"] as? String == "2026-11-12T08:00:00Z")
                    #expect(card["source"] as? String == "json-ld" && card["text"] as? String == "Lakeside's class of 2027 signs.")
                }
            ),
            (site.url("bare.html"), "article", "Team schedule 2026", false, { card in #expect(card["source"] as? String == "title") }),
            (site.url("files/transcript.pdf"), "file", "transcript.pdf", true, { card in #expect(card["text"] as? String == "PDF · 5 pages") }),
            (
                site.url("video.mp4"), "video", "video.mp4", true,
                { card in #expect((media(card)["duration"] as? Double).map { $0 > 2 && $0 < 4 } == true) }
            )
        ]
        for (url, kind, title, picture, check) in cases {
            let answer = try setup.card(url)
            let card = try #require(answer.json, "\(url): \(answer.status)")
            #expect(answer.status == 200 && card["kind"] as? String == kind, "\(url): \(card)")
            #expect(card["title"] as? String == title, "\(url): \(card)")
            #expect(card["url"] as? String == url && card["stale"] as? Bool == false)
            check(card)
            let bytes = try setup.picture(card)
            #expect((bytes.map(Self.isImage) ?? false) == picture, "\(url): the picture is stored as a thumbnail of ours: \(card)")
        }
        // Asked again, each is answered from the index: the site sees no second request.
        let (before, answer) = (try site.requests("/watch"), try setup.card(site.url("watch?v=hl2026", on: .youtube)))
        let after = try site.requests("/watch")
        #expect(answer.status == 200 && after == before)
        // GET answers the same card.
        var query = URLComponents(string: setup.server.base + "/v1/links/preview")!
        query.queryItems = [URLQueryItem(name: "url", value: site.url("bare.html"))]
        let got = try ServerProcess.send(setup.server.authorized(URLRequest(url: query.url!)))
        #expect(got.status == 200 && got.json?["title"] as? String == "Team schedule 2026")
    }

    @Test func everyWayInsideIsRefused() throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (site, port) = (setup.site, setup.server.port)
        let refused: [(link: String, status: Int, code: String)] = [
            (site.url("to-loopback"), 422, "private_address"), (site.url("to-octal"), 422, "private_address"),
            (site.url("to-mapped"), 422, "private_address"), (site.url("to-decimal"), 422, "private_address"),
            ("http://127.0.0.1:\(port)/metrics", 422, "private_address"), ("http://[::1]:\(port)/metrics", 422, "private_address"),
            ("file:///etc/passwd", 400, "bad_request"), ("gopher://127.0.0.1:\(port)/_metrics", 400, "bad_request"),
            (site.url("to-file"), 422, "link_failed"), (site.url("to-gopher"), 422, "link_failed"),
            (site.url("loop/a"), 422, "link_failed"), (site.url("cards/huge.html"), 413, "file_too_large"),
            (site.url("cards/trickle.html"), 422, "timeout")
        ]
        for (link, status, code) in refused {
            let answer = try setup.card(link)
            let error = answer.json?["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(link): \(answer)")
            #expect(answer.status == status, "\(link): \(answer)")
        }
        // What a page points inside costs the card that part only.
        let inside = try #require(try setup.card(site.url("cards/og-inside.html")).json)
        #expect(inside["title"] as? String == "Inside" && (inside["picture_error"] as? [String: Any])?["code"] as? String == "private_address")
        #expect(try setup.picture(inside) == nil, "no picture")
        let discovered = try #require(try setup.card(site.url("cards/oembed-inside.html")).json)
        #expect(discovered["title"] as? String == "Discovery" && discovered["source"] as? String == "title", "\(discovered)")
        // Hostile pictures and markup: bounded, answered with their reason.
        let bomb = try #require(try setup.card(site.url("cards/bomb.html")).json)
        #expect(bomb["title"] as? String == "Bomb" && bomb["picture_error"] != nil, "\(bomb)")
        let notImage = try #require(try setup.card(site.url("cards/not-an-image.html")).json)
        #expect((notImage["picture_error"] as? [String: Any])?["code"] as? String == "unsupported_type", "\(notImage)")
        #expect(try setup.card(site.url("cards/deep.html")).json?["title"] as? String == "Deep")
    }

    @Test func fetchesArePacedPerOwnerNotKeptCards() throws {
        let setup = try Setup()
        defer { setup.remove() }
        for index in 0..<20 {
            #expect(try setup.card(setup.site.url("bare.html?n=\(index)"), owner: "coach-a").status == 200)
        }
        let paced = try setup.card(setup.site.url("bare.html?n=20"), owner: "coach-a")
        #expect(paced.status == 429 && (paced.json?["error"] as? [String: Any])?["code"] as? String == "queue_full", "\(paced)")
        #expect(try setup.card(setup.site.url("bare.html?n=3"), owner: "coach-a").status == 200, "a kept card is not paced")
        #expect(try setup.card(setup.site.url("bare.html?n=20"), owner: "coach-b").status == 200, "another owner's pace is its own")
        #expect(try setup.card(setup.site.url("bare.html?n=21")).status == 200, "the service asking for no owner is not paced")
    }

    /// `docpreview link-preview`: the same card on the command line, its picture written where asked;
    /// a refused link is its error object and exit code.
    @Test func theCommandPrintsACard() throws {
        let folder = try TemporaryFolder()
        let site = try LinkTestSite()
        defer {
            site.stop()
            folder.remove()
        }
        let config = folder.url.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: ["links": site.linksConfiguration()]).write(to: config)
        let picture = folder.url.appendingPathComponent("picture.jpg")
        let common =
            ["--store", folder.url.appendingPathComponent("store").path, "--config", config.path, "--json"]
            + site.addresses.flatMap { ["--allow-private-fetch", $0] }
        let made = try DocPreviewProcess.run(["link-preview", site.url("news/signing-day"), "--picture", picture.path] + common)
        #expect(made.status == 0, "\(made.stderr)")
        let card = try #require(made.json?["card"] as? [String: Any], "\(made.stdout)")
        #expect(card["title"] as? String == "Signing day: 14 seniors commit" && made.json?["picture_sha256"] is String)
        #expect(Self.isImage(try Data(contentsOf: picture)))
        let refused = try DocPreviewProcess.run(["link-preview", site.url("to-loopback")] + common)
        #expect(refused.status == 3 && (refused.json?["error"] as? [String: Any])?["code"] as? String == "private_address", "\(refused.stdout)")
    }
}
