import Foundation
import PreviewTestSupport
import Testing

/// `docpreview transcode` end to end.
@Suite(.blocking) struct TranscodeCommandTests {
    @Test func writesTheRenditionAndReportsIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.url.appendingPathComponent("clip.avi")
        try MediaTools.aviClip(source, size: "640x360", seconds: 2)
        let output = folder.url.appendingPathComponent("clip.mp4").path
        let result = try DocPreviewProcess.run(["transcode", source.path, "-o", output, "--type", "highlight_video", "--height", "240", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["playback"] as? String == "transcode")
        #expect(json["video"] as? String == "encode" && json["audio"] as? String == "copy")
        #expect(json["width"] as? Int == 426 && json["height"] as? Int == 240)
        #expect((json["codecs"] as? String)?.hasPrefix("avc1.64") == true)
        #expect(json["size"] as? Int == (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int))
        #expect(try MediaTools.probe(URL(fileURLWithPath: output)).video?.height == 240)
    }

    @Test func refusalsUseTheContractsExitCodes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("x.mp4").path
        let cases: [(String, [String], Int32, String)] = [
            ("audio-only.m4a", [], 3, "no_video_stream"),
            ("document-5-pages.pdf", [], 3, "no_video_stream"),
            ("bad-truncated.mov", [], 4, "corrupt"),
            ("video-h264.mp4", ["--height", "100"], 2, "")  // a usage error: below 144
        ]
        for (sample, options, status, code) in cases {
            let result = try DocPreviewProcess.run(["transcode", Fixtures.sample(sample).path, "-o", output, "--json"] + options)
            #expect(result.status == status, "\(sample): \(result.stdout) \(result.stderr)")
            if !code.isEmpty { #expect((result.json?["error"] as? [String: Any])?["code"] as? String == code, "\(sample)") }
            #expect(!FileManager.default.fileExists(atPath: output), "\(sample) left an output")
        }
    }
}

/// `docpreview sprites` end to end.
@Suite(.blocking) struct SpritesCommandTests {
    @Test func writesSheetsAndTrack() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("thumbnails")
        let result = try DocPreviewProcess.run(["sprites", Fixtures.sample("video-h264.mp4").path, "-o", output.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        let sheets = try #require(json["sheets"] as? [String])
        #expect(!sheets.isEmpty && json["tile_width"] as? Int == 240)
        for sheet in sheets {
            #expect(try Data(contentsOf: output.appendingPathComponent(sheet)).starts(with: [0xFF, 0xD8]))
        }
        let track = try String(contentsOf: output.appendingPathComponent("thumbnails.vtt"), encoding: .utf8)
        #expect(track.hasPrefix("WEBVTT") && track.contains("sprite-0.jpg#xywh=0,0,240,"))

        let refused = try DocPreviewProcess.run(["sprites", Fixtures.sample("audio-only.m4a").path, "-o", output.path, "--json"])
        #expect(refused.status == 3 && (refused.json?["error"] as? [String: Any])?["code"] as? String == "no_video_stream")
    }
}

/// Every video of the shared corpus (real files from public test suites: fragmented, truncated,
/// encrypted, hand-made), through `transcode` and `sprites`: each ends with its output or a clear
/// error its manifest entry allows, never a crash, a hang or a partial rendition.
@Suite(.blocking) struct CorpusRenditionTests {
    static let videos = ((try? ExpectationManifest.corpus())?.entries ?? []).filter {
        ["mp4", "mov", "m4v", "avi", "mkv", "webm", "flv", "wmv", "mpg", "ts", "3gp", "ogv"].contains($0.url.pathExtension.lowercased())
    }

    @Test(arguments: videos)
    func endsCleanly(_ entry: ExpectationManifest.Entry) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("rendition.mp4")
        for arguments in [
            ["transcode", "-o", output.path], ["transcode", "--hls", folder.url.appendingPathComponent("ladder").path],
            ["sprites", "-o", folder.url.appendingPathComponent("sprites").path]
        ] {
            let result = try DocPreviewProcess.run(arguments + ["--json", "--timeout", "60", "--", entry.url.path], timeout: 90)
            #expect([0, 3, 4].contains(result.status), "\(entry) \(arguments[0...1]): exit \(result.status) \(result.stderr)")
            let outcome = result.status == 0 ? "ok" : (result.json?["error"] as? [String: Any])?["code"] as? String ?? "?"
            #expect(entry.expected.contains(outcome), "\(entry) \(arguments[0...1]): \(outcome), expected \(entry.expected)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).allSatisfy { !$0.contains("partial") })
    }
}

/// `batch --renditions`: videos get their playback derivatives in the batch, as the queue's
/// playback jobs make them, and the report says what became of each rendition.
@Suite(.blocking) struct BatchRenditionTests {
    /// `ingest --renditions`: the same for one file; a video past the ladder threshold (lowered
    /// to 2 s here) gets its ladder too.
    @Test func ingestMakesTheRenditionAndLadder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clip = folder.url.appendingPathComponent("clip.avi")
        try MediaTools.aviClip(clip, size: "320x180", seconds: 3)
        let config = folder.url.appendingPathComponent("config.json")
        try Data(#"{"renditions": {"ladder_min_seconds": 2}}"#.utf8).write(to: config)
        let result = try DocPreviewProcess.run([
            "ingest", clip.path, "--store", folder.url.appendingPathComponent("store").path, "--renditions",
            "--config", config.path, "--json"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((result.json?["rendition"] as? [String: Any])?["status"] as? String == "ready", "\(result.stdout)")
        let ladder = result.json?["ladder"] as? [String: Any]
        #expect(ladder?["status"] as? String == "ready" && (ladder?["size"] as? Int ?? 0) > 0, "\(result.stdout)")
        #expect((ladder?["codecs"] as? String)?.hasPrefix("avc1.64") == true)
    }

    @Test func videosGetRenditionsInTheBatch() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try MediaTools.aviClip(input.appendingPathComponent("clip.avi"), size: "320x180", seconds: 3)
        try FileManager.default.copyItem(at: Fixtures.sample("video-h264.mp4"), to: input.appendingPathComponent("direct.mp4"))
        try FileManager.default.copyItem(at: Fixtures.sample("image.webp"), to: input.appendingPathComponent("photo.webp"))
        let report = folder.url.appendingPathComponent("report.json")
        let store = folder.url.appendingPathComponent("store").path
        let result = try DocPreviewProcess.run(["batch", input.path, "--store", store, "--renditions", "--report", report.path])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["files"] as? [[String: Any]])
        func entry(_ name: String) -> [String: Any] { files.first { ($0["path"] as? String)?.hasSuffix(name) == true } ?? [:] }
        #expect(entry("clip.avi")["playback"] as? String == "transcode")
        let rendition = entry("clip.avi")["rendition"] as? [String: Any]
        #expect(rendition?["status"] as? String == "ready" && (rendition?["size"] as? Int ?? 0) > 0, "\(rendition ?? [:])")
        #expect(entry("direct.mp4")["playback"] as? String == "direct")
        // A video that plays everywhere as it is gets its streams copied: pages play it without its original.
        #expect((entry("direct.mp4")["rendition"] as? [String: Any])?["status"] as? String == "ready")
        #expect(entry("photo.webp")["rendition"] == nil)
        #expect(entry("clip.avi")["ladder"] == nil, "a 3 s video gets no ladder")
        // Statistics count the rendition and thumbnails among the derivatives.
        let stats = try #require(try DocPreviewProcess.run(["stats", "--store", store, "--json"]).json)
        #expect((stats["preview_bytes"] as? Int ?? 0) > (rendition?["size"] as? Int ?? .max))
    }
}
