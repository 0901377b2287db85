import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewTestSupport
import Testing

/// The original of a video plays and seeks in headless Chromium through `/content`: the browser asks
/// for byte ranges and the server answers 206. So do renditions of what Chromium cannot play.
@Suite(.blocking, .serialized) struct ViewerBrowserTests {
    static let chromiumPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func aVideoPlaysAndSeeksInChromium() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (server, id) = try Self.serving("video-h264.mp4", in: folder)
        let title = try Self.playAndSeek(chromium, "\(server.base)/v1/documents/\(id)/content", to: 2.5, in: folder)
        #expect(title.hasPrefix("playing at "), "the player's state: \(title)")
        #expect(try Self.rangesServed(server) >= 1, "the player was served byte ranges (206)")
    }

    /// The renditions `serve` makes of an AVI (MPEG-4 Part 2 + MP3, which Chromium refuses) and of
    /// an iPhone's HEVC 10-bit HLG play in Chromium from their URLs, seeking to the middle.
    @Test func renditionsPlayWhereTheOriginalsDoNot() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let sources: [(String, [String])] = [
            ("clip.avi", ["-c:v", "mpeg4", "-c:a", "libmp3lame"]),
            (
                "clip.mov",
                [
                    "-c:v", "libx265", "-x265-params", "log-level=none", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
                    "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-c:a", "aac"
                ]
            )
        ]
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2)
        for (name, encode) in sources {
            let uploaded = try server.upload(
                try PlaybackServeTests.video(name, encode, in: folder),
                query: "owner=ana&type=highlight_video&title=\(name)&filename=\(name)")
            let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
            let document = try PlaybackServeTests.settled(server, id)
            let rendition = try #require((document["renditions"] as? [[String: Any]])?.first?["url"] as? String, "\(document)")
            let original = try Self.playAndSeek(chromium, "\(server.base)/v1/documents/\(id)/content", to: 3, in: folder)
            let made = try Self.playAndSeek(chromium, server.base + rendition, to: 3, in: folder)
            // Debian's Chromium decodes HEVC in software through the system's FFmpeg (stock Chrome
            // needs hardware for it, Firefox has none): only the AVI's original is sure to fail here.
            if name.hasSuffix(".avi") { #expect(original.hasPrefix("error "), "\(name): Chromium played the original after all: \(original)") }
            #expect(made.hasPrefix("playing at "), "\(name)'s rendition: \(made)")
        }
        #expect(try Self.rangesServed(server) >= 2, "the player was served byte ranges (206)")
    }

    /// A ladder's master playlist, then the rendition, as the viewer lists them: Chromium plays the
    /// ladder where it plays HLS, else skips it for the rendition; either way the video plays and
    /// seeks. (Whether it took the ladder is printed: Debian's Chromium 156 does not, and ffmpeg
    /// reading every rung over HTTP is PlaybackServeTests' part.)
    @Test func theViewersSourcesPlayWithALadderFirst() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("ladder.json")
        try Data(#"{"renditions": {"ladder_min_seconds": 5}}"#.utf8).write(to: config)
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, extra: ["--config", config.path])
        let uploaded = try server.upload(
            try PlaybackServeTests.video("clip.avi", ["-c:v", "mpeg4", "-c:a", "libmp3lame"], in: folder),
            query: "owner=ana&type=highlight_video&title=clip&filename=clip.avi")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        let document = try PlaybackServeTests.settled(server, id)
        let master = try #require(document["hls"] as? String, "\(document)")
        let rendition = try #require((document["renditions"] as? [[String: Any]])?.first?["url"] as? String)
        let state = try Self.playAndSeek(
            chromium,
            video: """
                <video id="v" muted preload="auto"><source src="\(server.base + master)" type="application/vnd.apple.mpegurl">\
                <source src="\(server.base + rendition)" type="video/mp4"></video>
                """, to: 3, in: folder)
        print("Chromium with the ladder listed first: \(state)")
        #expect(state.hasPrefix("playing at "), "\(state)")
    }

    /// A share link opened in Chromium with no cookie and no token: the page's pages load (by the
    /// signed URLs on it), its video plays and seeks, a URL taken from it and altered by hand does
    /// not load, and once the share is revoked the link shows the 410 page.
    @Test func aShareLinkOpensWithoutAnAccount() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, token: PlaybackServeTests.token)
        func shared(_ data: Data, _ name: String) throws -> (page: String, shareID: String) {
            let id = try #require(try server.upload(data, query: "owner=ana&title=\(name)&filename=\(name)").json?["document_id"] as? String)
            _ = try PlaybackServeTests.settled(server, id, needsPlayback: name.hasSuffix(".avi"))
            var request = server.authorized(URLRequest(url: URL(string: "\(server.base)/v1/documents/\(id)/shares")!))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"label": "State University"}"#.utf8)
            let made = try #require(try JSONSerialization.jsonObject(with: PlaybackServeTests.fetch(request).0) as? [String: Any])
            return (try #require(made["url"] as? String), try #require(made["share_id"] as? String))
        }
        let pdf = try shared(Data(contentsOf: Fixtures.sample("document-5-pages.pdf")), "transcript.pdf")
        let video = try shared(try PlaybackServeTests.video("clip.avi", ["-c:v", "mpeg4", "-c:a", "libmp3lame"], in: folder), "clip.avi")

        // The pages, as the share page names them, load in a browser that has nothing of ours.
        let html = String(decoding: try PlaybackServeTests.fetch(URLRequest(url: URL(string: server.base + pdf.page)!)).0, as: UTF8.self)
        let pages = html.matches(of: /<img [^>]*?src="([^"]+)"/).map {
            server.base + String($0.output.1).replacingOccurrences(of: "&amp;", with: "&")
        }
        #expect(pages.count == 5)
        let altered = pages[0].replacingOccurrences(of: "/preview?", with: "/content?")
        let loaded = try Self.loadImages(chromium, pages + [altered], in: folder)
        #expect(loaded == Array(repeating: "loaded", count: 5) + ["failed"], "\(loaded)")

        // The video's sources from its share page: the rendition plays and seeks.
        let videoPage = String(decoding: try PlaybackServeTests.fetch(URLRequest(url: URL(string: server.base + video.page)!)).0, as: UTF8.self)
        let sources = videoPage.matches(of: /<source src="([^"]+)" type=("[^"]*"|'[^']*')>/).map {
            "<source src=\"\(server.base)\(String($0.output.1).replacingOccurrences(of: "&amp;", with: "&"))\" type=\($0.output.2)>"
        }
        #expect(
            sources.count == 1 && !sources[0].contains("/content"),
            "the rendition only: a share without downloads never hands out the original: \(sources)")
        let state = try Self.playAndSeek(chromium, video: "<video id=\"v\" muted preload=\"auto\">\(sources.joined())</video>", to: 3, in: folder)
        #expect(state.hasPrefix("playing at ") && state.contains("/renditions/mp4?"), "\(state)")

        // Revoked: a reload shows the 410 page.
        var revoke = server.authorized(URLRequest(url: URL(string: "\(server.base)/v1/shares/\(pdf.shareID)")!))
        revoke.httpMethod = "DELETE"
        #expect(try PlaybackServeTests.fetch(revoke).1.statusCode == 200)
        let reloaded = try Self.chromium(chromium, ["--dump-dom", server.base + pdf.page], profile: folder)
        #expect(reloaded.contains("<h1>Not available</h1>") && reloaded.contains("withdrawn"), "\(reloaded)")
    }

    /// Loads each of `urls` as an image in headless Chromium; for each, `loaded` or `failed`.
    static func loadImages(_ chromium: String, _ urls: [String], in folder: TemporaryFolder) throws -> [String] {
        let page = folder.url.appendingPathComponent("images-\(UUID().uuidString).html")
        let images = urls.enumerated().map { "<img id=\"i\($0.offset)\" src=\"\($0.element.replacingOccurrences(of: "&", with: "&amp;"))\">" }
        try """
        <!doctype html><title>loading</title>\(images.joined())
        <script>
        window.addEventListener('load', () => {
          document.title = [...document.images].map(i => i.complete && i.naturalWidth > 0 ? 'loaded' : 'failed').join(' ');
        });
        </script>
        """.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Self.chromium(chromium, ["--dump-dom", page.absoluteString], profile: folder)
        return String(dom.firstMatch(of: /<title>([^<]*)<\/title>/)?.output.1 ?? "").split(separator: " ").map(String.init)
    }

    /// Opens a page whose `<video>` loads `source`, seeks to `seconds` once the metadata is in and
    /// plays from there; the page's title says what happened (`playing at … from URL`, `error …`).
    static func playAndSeek(_ chromium: String, _ source: String, to seconds: Double, in folder: TemporaryFolder) throws -> String {
        try playAndSeek(chromium, video: "<video id=\"v\" muted preload=\"auto\" src=\"\(source)\"></video>", to: seconds, in: folder)
    }

    /// The same for a `<video>` element as `video` writes it (with `id="v"`): its `<source>` list, say.
    static func playAndSeek(_ chromium: String, video: String, to seconds: Double, in folder: TemporaryFolder) throws -> String {
        // The DOM is dumped when the virtual time budget is spent.
        let page = folder.url.appendingPathComponent("player-\(UUID().uuidString).html")
        try """
        <!doctype html><title>loading</title>
        \(video)
        <script>
        const v = document.getElementById('v');
        v.addEventListener('loadedmetadata', () => { v.currentTime = \(seconds); });
        v.addEventListener('seeked', () => { v.play().then(() => {}, e => { document.title = 'play failed ' + e; }); });
        v.addEventListener('timeupdate', () => {
          if (v.currentTime > \(seconds) && !v.paused) document.title = 'playing at ' + v.currentTime.toFixed(2) + ' of ' + v.duration.toFixed(2) + \
          ' from ' + v.currentSrc;
        });
        v.addEventListener('error', () => { document.title = 'error ' + v.error.code + ' ' + v.error.message; });
        </script>
        """.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Self.chromium(chromium, ["--autoplay-policy=no-user-gesture-required", "--dump-dom", page.absoluteString], profile: folder)
        return String(dom.firstMatch(of: /<title>([^<]*)<\/title>/)?.output.1 ?? "no title")
    }

    /// Byte-range answers (206) the server has given for stored files so far.
    static func rangesServed(_ server: ServerProcess) throws -> Int {
        let metrics = try String(contentsOf: URL(string: server.base + "/metrics")!, encoding: .utf8)
        return Int(metrics.firstMatch(of: /docpreview_content_responses_total\{status="206"\} (\d+)/)?.output.1 ?? "0") ?? 0
    }

    /// The viewer's pages load lazily (headless Chromium needs lazy loading switched back on): opening a
    /// 5-page PDF renders only the pages near the viewport.
    @Test func theViewerRendersOnlyThePagesInView() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (server, id) = try Self.serving("document-5-pages.pdf", in: folder)
        try server.document(id, reaching: ["done"])
        _ = try Self.chromium(
            chromium,
            [
                "--blink-settings=lazyLoadEnabled=true", "--window-size=1200,900",
                "--screenshot=\(folder.url.appendingPathComponent("viewer.png").path)",
                "\(server.base)/ui/documents/\(id)"
            ], profile: folder)
        let metrics = try String(contentsOf: URL(string: server.base + "/metrics")!, encoding: .utf8)
        let rendered = Int(metrics.firstMatch(of: /docpreview_preview_render_seconds_count\{kind="pdf"\} (\d+)/)?.output.1 ?? "0") ?? 0
        #expect((1..<5).contains(rendered), "pages rendered on opening the viewer: \(rendered) of 5")
    }

    /// A server on a store in `folder` holding `sample`, and the sample's document id.
    static func serving(_ sample: String, in folder: TemporaryFolder) throws -> (ServerProcess, String) {
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1)
        let uploaded = try server.upload(Data(contentsOf: Fixtures.sample(sample)), query: "owner=ana&title=\(sample)&filename=\(sample)")
        return (server, try #require(uploaded.json?["document_id"] as? String))
    }

    /// Runs headless Chromium with `arguments` until it exits (after its virtual time budget); its stdout.
    static func chromium(_ path: String, _ arguments: [String], profile folder: TemporaryFolder) throws -> String {
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: path)
        browser.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                "--user-data-dir=\(folder.url.appendingPathComponent("profile").path)"
            ] + arguments
        let output = Pipe()
        browser.standardOutput = output
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        return text
    }
}
