import Foundation
import PreviewTestSupport
import Testing

/// `docpreview render` end to end.
@Suite(.blocking) struct RenderCommandTests {
    @Test func writesTheImageAndReportsIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("page.png").path
        let result = try DocPreviewProcess.run([
            "render", Fixtures.sample("document-5-pages.pdf").path, "-o", output,
            "--page", "2", "--width", "600", "--json"
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["output"] as? String == output)
        #expect(json["width"] as? Int == 600)
        #expect(json["height"] as? Int == 776)
        #expect(json["ms"] is Double || json["ms"] is Int)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "format follows the output name")
    }

    @Test func formatFlagWins() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("thumb.bin").path
        let result = try DocPreviewProcess.run(["render", Fixtures.sample("image.webp").path, "-o", output, "--format", "webp"])
        #expect(result.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).prefix(12).suffix(4) == Data("WEBP".utf8))
    }

    @Test func failuresUseTheContractsExitCodes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.url.appendingPathComponent("x.jpg").path
        let cases: [(String, [String], Int32, String)] = [
            ("bad-encrypted.pdf", [], 4, "encrypted"),
            ("bad-truncated.mov", [], 4, "corrupt"),
            ("audio-only.m4a", [], 3, "no_video_stream"),
            ("document-5-pages.pdf", ["--page", "9"], 3, "page_out_of_range"),
            ("bad-zip-named.pdf", [], 3, "content_mismatch")
        ]
        for (sample, extra, status, code) in cases {
            let result = try DocPreviewProcess.run(["render", Fixtures.sample(sample).path, "-o", output, "--json"] + extra)
            #expect(result.status == status, "\(sample)")
            #expect((result.json?["error"] as? [String: String])?["code"] == code, "\(sample)")
        }
        #expect(!FileManager.default.fileExists(atPath: output), "nothing written on failure")
        #expect(try DocPreviewProcess.run(["render", Fixtures.sample("image.webp").path, "-o", output, "--width", "0"]).status == 2)
        #expect(try DocPreviewProcess.run(["render", Fixtures.sample("image.webp").path, "-o", output, "--page", "0"]).status == 2)
        #expect(try DocPreviewProcess.run(["render", Fixtures.sample("image.webp").path, "-o", output, "--quality", "101"]).status == 2)
    }

    @Test func infoReportsMediaFacts() throws {
        let video = try #require(try DocPreviewProcess.run(["info", Fixtures.sample("video-rotated-90.mp4").path, "--json"]).json)
        #expect(video["codec"] as? String == "h264")
        #expect(video["rotation"] as? Int == 90)
        #expect((video["width"] as? Int, video["height"] as? Int) == (360, 640))
        #expect((video["duration_s"] as? Double).map { abs($0 - 2) < 0.1 } == true)
        let pdf = try #require(try DocPreviewProcess.run(["info", Fixtures.sample("document-5-pages.pdf").path, "--json"]).json)
        #expect(pdf["pages"] as? Int == 5)
        let encrypted = try DocPreviewProcess.run(["info", Fixtures.sample("bad-encrypted.pdf").path, "--json"])
        #expect(encrypted.status == 4)
        #expect((encrypted.json?["error"] as? [String: String])?["code"] == "encrypted")
    }

    @Test func watchdogEndsAJobThatOutlivesItsLimit() throws {
        // The corpus's decompression bomb: Poppler works on it for minutes and cannot be interrupted.
        let bomb = Fixtures.corpus.appendingPathComponent("files/067_pdf.js_bomb_giant.pdf")
        try #require(FileManager.default.fileExists(atPath: bomb.path))
        let started = Date()
        let result = try DocPreviewProcess.run(["render", bomb.path, "-o", "/dev/null", "--json", "--timeout", "2"])
        #expect(result.status == 4)
        #expect((result.json?["error"] as? [String: String])?["code"] == "timeout")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    /// libvips lists objects still alive at shutdown when VIPS_LEAK is set: none may be, on success or
    /// failure. (Video frames and PDF pages never load libvips: `NativeLoadingTests`.)
    @Test(arguments: ["image-alpha.png", "image-animated.gif", "photo-exif-orientation-6.jpg", "image-cmyk.jpg", "bad-truncated.jpg"])
    func noLeakedVipsObjects(sample: String) throws {
        let result = try DocPreviewProcess.run(
            ["render", Fixtures.sample(sample).path, "-o", "/dev/null", "--format", "png"],
            environment: ["VIPS_LEAK": "1"])
        #expect(result.stderr.contains("high-water mark"), "the leak report did not run: \(result.stderr)")
        #expect(!result.stderr.contains("alive"), "\(sample): \(result.stderr)")
    }
}

/// `render` over every file of the shared corpus whose outcome a renderer can decide: the
/// outcome is in the file's expected set, within the job limit, and no process crashes.
@Suite(.blocking) struct CorpusRenderTests {
    static let entries = ((try? ExpectationManifest.corpus())?.entries ?? []).filter { !$0.expected.isDisjoint(with: renderOutcomes) }

    @Test(arguments: entries)
    func renderOutcome(entry: ExpectationManifest.Entry) throws {
        let result = try DocPreviewProcess.run(
            [
                "render", "--json", "--timeout", String(corpusJobSeconds), "-o", "/dev/null", "--",
                entry.url.path
            ], timeout: Double(corpusJobSeconds + 60))
        #expect([0, 3, 4].contains(result.status), "\(entry.file): exit \(result.status), stderr \(result.stderr.suffix(300))")
        let json = try #require(result.json, "\(entry.file): no JSON (exit \(result.status))")
        var outcome = (json["error"] as? [String: String])?["code"] ?? "ok"
        if outcome == "unsupported_type", ((json["error"] as? [String: String])?["message"] ?? "").hasPrefix("No preview is made") {
            outcome = "no_preview"
        }
        if let known = knownCorpusDisagreements[entry.file] {
            #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
        } else {
            #expect(entry.expected.contains(outcome), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
        }
    }
}
