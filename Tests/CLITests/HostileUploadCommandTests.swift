import Foundation
import PreviewTestSupport
import Testing

/// The reported attacks, as a user of the CLI meets them (run against an older binary through
/// `$DOCPREVIEW_BIN`, they show the hole; against this one, that it is closed).
@Suite(.blocking) struct HostileUploadCommandTests {
    /// 104 bytes named `.mp3`: an ID3 header, then an HLS playlist naming a video elsewhere on the
    /// disk. FFmpeg followed it and the "thumbnail" was that video's first frame.
    @Test func id3PlaylistCannotExfiltrateAVideo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:3.0,\n\(Fixtures.sample("video-h264.mp4").path)\n#EXT-X-ENDLIST\n"
        let input = try folder.file("song.mp3", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + Array(playlist.utf8))
        let output = folder.url.appendingPathComponent("frame.jpg")
        let result = try DocPreviewProcess.run(["render", "--json", input.path, "-o", output.path, "--width", "4096"])
        let code = (result.json?["error"] as? [String: String])?["code"]
        #expect(code == "no_video_stream", "exit \(result.status): \(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// An SVG linking a file stored in the same folder: librsvg resolved it and drew it into the preview.
    @Test func svgCannotEmbedANeighbouringFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let neighbour = try folder.file("neighbour.png", Array(try Data(contentsOf: Fixtures.sample("image-alpha.png"))))
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="white"/>\
            <image href="\(neighbour.lastPathComponent)" width="320" height="200"/></svg>
            """
        let input = try folder.file("drawing.svg", Array(svg.utf8))
        let plain = try folder.file("plain.svg", Array(svg.replacingOccurrences(of: neighbour.lastPathComponent, with: "missing.png").utf8))
        var outputs: [Data] = []
        for file in [input, plain] {
            let output = folder.url.appendingPathComponent("\(file.lastPathComponent).png")
            let result = try DocPreviewProcess.run(["render", file.path, "-o", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append((try? Data(contentsOf: output)) ?? Data())
        }
        #expect(outputs[0] == outputs[1], "the linked image was drawn into the preview")
    }
}

/// `serve` refuses to start in ways that would leave it open by mistake.
@Suite(.blocking) struct ServeStartupTests {
    @Test func refusesAnEmptyTokenAndAnOpenNonLoopbackAddress() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let empty = try folder.file("empty-token", Array("\n".utf8))
        // Issue 65, item 13: a strong token in a file others may read is refused, with the mend.
        let readable = try folder.file("readable-token", Array("Xq3vT9kLm2Rb7Wc4Yp8Zs1\n".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable.path)
        let store = folder.url.appendingPathComponent("store").path
        let cases: [([String], [String: String], String)] = [
            (["--token", ""], [:], "empty"),
            (["--token-file", empty.path], [:], "empty"),
            ([], ["DOCPREVIEW_TOKEN": " "], "empty"),
            (["--host", "0.0.0.0"], [:], "--insecure-no-token"),
            (["--token", "a", "--token-file", empty.path], [:], "not both"),
            (["--token-file", readable.path], [:], "chmod 600"),
            (["--token", "correct-horse-battery"], [:], "too easy to guess"),
            ([], ["DOCPREVIEW_TOKEN": String(repeating: "ab", count: 40)], "too easy to guess")
        ]
        for (arguments, environment, message) in cases {
            let result = try DocPreviewProcess.run(["serve", "--store", store, "--port", "0"] + arguments, environment: environment, timeout: 20)
            #expect(result.status == 2, "\(arguments): exit \(result.status)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// A weak token is accepted only when asked for, and a random one always.
    @Test func strongOrDeliberatelyWeakTokensStart() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for arguments in [["--token", "Xq3vT9kLm2Rb7Wc4Yp8Zs1"], ["--token", "short", "--insecure-weak-token"]] {
            let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: arguments)
            #expect(try server.get("/healthz").status == 200, "\(arguments)")
        }
    }
}
