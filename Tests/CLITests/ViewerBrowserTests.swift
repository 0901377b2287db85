import Foundation
import PreviewTestSupport
import Testing

/// The original of a video plays and seeks in headless Chromium through `/content`: the browser asks
/// for byte ranges and the server answers 206.
@Suite(.serialized) struct ViewerBrowserTests {
    static let chromiumPath = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func aVideoPlaysAndSeeksInChromium() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (server, id) = try Self.serving("video-h264.mp4", in: folder)
        // The page seeks once the metadata is in, plays from there, and writes what happened into its title
        // (the DOM is dumped when the virtual time budget is spent).
        let page = folder.url.appendingPathComponent("player.html")
        try """
            <!doctype html><title>loading</title>
            <video id="v" muted preload="auto" src="\(server.base)/v1/documents/\(id)/content"></video>
            <script>
            const v = document.getElementById('v');
            v.addEventListener('loadedmetadata', () => { v.currentTime = 2.5; });
            v.addEventListener('seeked', () => { v.play().then(() => {}, e => { document.title = 'play failed ' + e; }); });
            v.addEventListener('timeupdate', () => {
              if (v.currentTime > 2.5 && !v.paused) document.title = 'playing at ' + v.currentTime.toFixed(2) + ' of ' + v.duration.toFixed(2);
            });
            v.addEventListener('error', () => { document.title = 'error ' + v.error.code + ' ' + v.error.message; });
            </script>
            """.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Self.chromium(chromium, ["--autoplay-policy=no-user-gesture-required", "--dump-dom", page.absoluteString], profile: folder)
        let title = dom.firstMatch(of: /<title>([^<]*)<\/title>/)?.output.1 ?? "no title"
        #expect(title.hasPrefix("playing at "), "the player's state: \(title)")

        let metrics = try String(contentsOf: URL(string: server.base + "/metrics")!, encoding: .utf8)
        let partial = metrics.firstMatch(of: /docpreview_content_responses_total\{status="206"\} (\d+)/)?.output.1
        #expect(Int(partial ?? "0") ?? 0 >= 1, "the player was served byte ranges (206)")
    }

    /// The viewer's pages load lazily (headless Chromium needs lazy loading switched back on): opening a
    /// 5-page PDF renders only the pages near the viewport.
    @Test func theViewerRendersOnlyThePagesInView() throws {
        let chromium = try #require(Self.chromiumPath, "Chromium is installed by scripts/install-deps")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (server, id) = try Self.serving("document-5-pages.pdf", in: folder)
        for _ in 0..<300 where try server.get("/v1/documents/\(id)").json?["status"] as? String != "done" { usleep(100_000) }
        _ = try Self.chromium(chromium, ["--blink-settings=lazyLoadEnabled=true", "--window-size=1200,900",
                                         "--screenshot=\(folder.url.appendingPathComponent("viewer.png").path)",
                                         "\(server.base)/ui/documents/\(id)"], profile: folder)
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
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                             "--user-data-dir=\(folder.url.appendingPathComponent("profile").path)"] + arguments
        let output = Pipe()
        browser.standardOutput = output
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        return text
    }
}
