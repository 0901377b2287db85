import Foundation
import PreviewTestSupport
import Testing

/// `docpreview info` end to end: the built binary, its JSON, its exit codes.
@Suite(.blocking) struct InfoCommandTests {
    @Test func helpListsCommands() throws {
        let result = try DocPreviewProcess.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("info"))
    }

    @Test func acceptedFileJSON() throws {
        let path = Fixtures.sample("document-5-pages.pdf").path
        let result = try DocPreviewProcess.run(["info", path, "--json"])
        #expect(result.status == 0)
        let json = try #require(result.json)
        #expect(json["path"] as? String == path)
        #expect(json["kind"] as? String == "pdf")
        #expect(json["mime"] as? String == "application/pdf")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(json["size"] as? Int == size)
        let verdict = try #require(json["verdict"] as? [String: Any])
        #expect(verdict["reason"] as? String == "match")
        #expect(verdict["accepted"] as? Bool == true)
        #expect(json["error"] == nil)
    }

    /// The reported crash: `info` on an MPEG program stream with no elementary stream died with
    /// SIGSEGV (exit 139), its input closed twice.
    @Test func aProgramStreamWithoutStreamsIsCorruptNotACrash() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pack: [UInt8] = [0, 0, 1, 0xBA, 0x44, 0, 4, 0, 4, 1, 1, 0x89, 0xC3, 0xF8]
        let systemHeader: [UInt8] = [0, 0, 1, 0xBB, 0, 0x0C, 0x80, 0, 1, 4, 0xE1, 0xFF, 0xB9, 0xE0, 0, 0xB8, 0xC0, 0]
        let file = try folder.file("clip.mpg", pack + systemHeader + Array([[UInt8]](repeating: pack, count: 100).joined()))
        for command in ["info", "render"] {
            let result = try DocPreviewProcess.run([command, file.path, "--json"] + (command == "render" ? ["-o", "/dev/null"] : []))
            #expect(result.status == 4, "\(command): exit \(result.status)")
            #expect((result.json?["error"] as? [String: String])?["code"] == "corrupt", "\(command)")
        }
    }

    @Test func refusedFileExitsThreeWithErrorObject() throws {
        let result = try DocPreviewProcess.run(["info", Fixtures.sample("bad-zip-named.pdf").path, "--json"])
        #expect(result.status == 3)
        let error = try #require(result.json?["error"] as? [String: String])
        #expect(error["code"] == "content_mismatch")
        #expect(error["message"] == "This file is not a PDF (its contents are a ZIP archive).")
    }

    @Test func declaredTypeRefusal() throws {
        let result = try DocPreviewProcess.run(["info", Fixtures.sample("document-5-pages.pdf").path, "--type", "highlight_video", "--json"])
        #expect(result.status == 3)
        let error = try #require(result.json?["error"] as? [String: String])
        #expect(error["code"] == "extension_not_allowed")
        #expect(error["message"] == "Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
    }

    @Test func humanOutputNamesTheVerdict() throws {
        let result = try DocPreviewProcess.run(["info", Fixtures.sample("bad-executable.pdf").path])
        #expect(result.status == 3)
        #expect(result.stdout.contains("executable_refused"))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try DocPreviewProcess.run(["info", "/nonexistent/file.pdf"]).status == 2)
        #expect(try DocPreviewProcess.run(["info", Fixtures.sample("stats.csv").path, "--type", "photo"]).status == 2)
        #expect(try DocPreviewProcess.run(["info"]).status == 2)
        #expect(try DocPreviewProcess.run(["info", Fixtures.sample("stats.csv").path, "--max-size", "huge"]).status == 2)
        #expect(try DocPreviewProcess.run(["frobnicate"]).status == 2)
    }

    @Test func sizeLimitFromFlagAndEnvironment() throws {
        let path = Fixtures.sample("document-5-pages.pdf").path
        let flagged = try DocPreviewProcess.run(["info", path, "--json", "--max-size", "1KB"])
        #expect(flagged.status == 3)
        let message = (flagged.json?["error"] as? [String: String])?["message"] ?? ""
        #expect(
            message.hasPrefix("File exceeds 1KB limit.") && message.contains("--max-size"),
            "a local file's refusal says how to raise the limit: \(message)")
        let fromEnvironment = try DocPreviewProcess.run(["info", path, "--json"], environment: ["DOCPREVIEW_MAX_SIZE": "1000"])
        #expect((fromEnvironment.json?["error"] as? [String: String])?["code"] == "file_too_large")
    }

    @Test func configurationAddsADocumentType() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.file("rules.json", Array(#"{"types":[{"id":"photo","label":"Photo","extensions":["jpg","heic"]}]}"#.utf8))
        let photo = Fixtures.sample("photo-exif-orientation-6.jpg").path
        #expect(try DocPreviewProcess.run(["info", photo, "--type", "photo", "--config", config.path]).status == 0)
        let refused = try DocPreviewProcess.run(
            ["info", Fixtures.sample("image-alpha.png").path, "--type", "photo", "--json"],
            environment: ["DOCPREVIEW_CONFIG": config.path])
        #expect((refused.json?["error"] as? [String: String])?["message"] == "Invalid file type. Photo requires .jpg, .heic.")
    }

    /// Files made here, not in Samples: renamed, spoofed, empty, oversized (sparse), odd names.
    @Test func unseenSpoofedFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func sample(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: Fixtures.sample(name))) }
        let cases: [(String, [UInt8], Int32, String?)] = [
            ("holiday.PDF", try sample("image.webp"), 3, "content_mismatch"),
            ("stats.xlsx", try sample("resume.docx"), 3, "content_mismatch"),
            ("cat.jpg", try sample("bad-executable.pdf"), 3, "executable_refused"),
            ("notes.txt", Array("#!/usr/bin/env python3\nprint(1)\n".utf8), 3, "executable_refused"),
            ("clip.mp4", [], 3, "empty_file"),
            ("-leading-dash.mov", try sample("video-h264.mp4"), 0, nil),
            ("no extension", try sample("stats.xlsx"), 0, nil),
            ("weird.name.with.dots.webm", try sample("video-vp8.webm"), 0, nil),
            ("archive.zip", try sample("bad-zip-named.pdf"), 3, "unsupported_type"),
            ("page.html", Array("<!doctype html><title>x</title>".utf8), 3, "unsupported_type")
        ]
        for (name, bytes, status, code) in cases {
            let file = try folder.file(name, bytes)
            let result = try DocPreviewProcess.run(["info", "--json", "--", file.path])
            #expect(result.status == status, "\(name): \(result.stdout) \(result.stderr)")
            #expect((result.json?["error"] as? [String: String])?["code"] == code, "\(name)")
        }

        let huge = folder.url.appendingPathComponent("huge.pdf")
        _ = FileManager.default.createFile(atPath: huge.path, contents: Data("%PDF-1.4\n".utf8))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 101 * 1024 * 1024)  // sparse: no 101 MB written
        try handle.close()
        let result = try DocPreviewProcess.run(["info", "--json", huge.path])
        #expect(result.status == 3)
        #expect(
            (result.json?["error"] as? [String: String])?["message"]?.hasPrefix("File exceeds 100MB limit. To accept larger files, give --max-size")
                == true)
    }
}
