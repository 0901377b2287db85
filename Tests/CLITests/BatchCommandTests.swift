import Foundation
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// Copies the committed samples (files only) into `folder/name`.
private func copySamples(into folder: URL) throws -> URL {
    let target = folder.appendingPathComponent("inbox")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    for entry in try ExpectationManifest.samples().entries {
        try FileManager.default.copyItem(at: entry.url, to: target.appendingPathComponent(entry.file))
    }
    return target
}

/// `docpreview batch` (and the store commands around it) end to end.
@Suite(.blocking) struct BatchCommandTests {
    @Test(arguments: TestBackend.available) func reportShapeContactSheetAndResume(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = try copySamples(into: folder.url)
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let report = folder.url.appendingPathComponent("report.json")
        let html = folder.url.appendingPathComponent("sheet.html")
        let first = try DocPreviewProcess.run(["batch", inbox.path, "--store", store, "--report", report.path, "--html", html.path] + database)
        #expect(first.status == 0, "\(first.stderr)")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        let manifest = try ExpectationManifest.samples().entries
        #expect(files.count == manifest.count)
        for file in files {
            let path = try #require(file["path"] as? String)
            let expected = try #require(manifest.first { $0.file == path }?.expected, "\(path) not in manifest")
            let status = try #require(file["status"] as? String)
            #expect(["ok", "rejected", "failed", "no_preview"].contains(status))
            #expect(file["ms"] is Double || file["ms"] is Int)
            let outcome = status == "ok" || status == "no_preview" ? status : (file["error"] as? [String: String])?["code"] ?? "?"
            #expect(expected.contains(outcome), "\(path): \(outcome)")
            if status == "ok" {
                let preview = try #require(file["preview"] as? [String: Any], "\(path)")
                #expect(FileManager.default.fileExists(atPath: preview["path"] as? String ?? ""))
                #expect((preview["width"] as? Int ?? 0) > 0 && (preview["height"] as? Int ?? 0) > 0)
                #expect((file["sha256"] as? String)?.count == 64)
            }
        }
        let summary = try #require(json["summary"] as? [String: Any])
        for key in ["ok", "rejected", "failed", "no_preview", "elapsed_s", "files_per_s"] { #expect(summary[key] != nil, "\(key)") }
        #expect(summary["ok"] as? Int == manifest.filter { $0.expected == ["ok"] }.count)

        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<img src=\"store/objects/sha256/"), "thumbnails linked relative to the page")
        #expect(page.contains("document-5-pages.pdf") && page.contains("content_mismatch") == false && page.contains("This file is not a PDF"))

        let second = try DocPreviewProcess.run(["batch", inbox.path, "--store", store, "--report", report.path] + database)
        #expect(second.status == 0)
        let rerun = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let reused = (rerun["files"] as? [[String: Any]] ?? []).filter { $0["reused"] as? Bool == true }.count
        #expect(
            reused == manifest.filter { $0.expected == ["ok"] || $0.expected == ["no_preview"] }.count, "a second run reuses every stored document")

        let stats = try #require(try DocPreviewProcess.run(["stats", "--store", store, "--json"] + database).json)
        #expect(
            stats["documents"] as? Int == (summary["ok"] as? Int ?? 0) + (summary["no_preview"] as? Int ?? 0) + 1,
            "plus the truncated JPEG, stored with a failed preview")
        #expect(try DocPreviewProcess.run(["verify", "--store", store] + database).status == 0)
    }

    @Test func hostileFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = folder.url.appendingPathComponent("inbox")
        let outside = folder.url.appendingPathComponent("outside.pdf")
        try FileManager.default.createDirectory(at: inbox.appendingPathComponent("looks-like.pdf"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.sample("image.webp"), to: inbox.appendingPathComponent("looks-like.pdf/inside.webp"))
        try FileManager.default.copyItem(at: Fixtures.sample("document-5-pages.pdf"), to: outside)
        try FileManager.default.copyItem(at: Fixtures.sample("stats.csv"), to: inbox.appendingPathComponent("-dash name with spaces.csv"))
        try FileManager.default.createSymbolicLink(at: inbox.appendingPathComponent("escape.pdf"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: inbox.appendingPathComponent("alias.webp"),
            withDestinationURL: inbox.appendingPathComponent("looks-like.pdf/inside.webp"))
        try FileManager.default.createSymbolicLink(at: inbox.appendingPathComponent("loop"), withDestinationURL: inbox)
        #expect(mkfifo(inbox.appendingPathComponent("pipe.mp4").path, 0o644) == 0)
        try FileManager.default.copyItem(at: Fixtures.sample("image.webp"), to: inbox.appendingPathComponent("new\nline.webp"))
        // A name that is not UTF-8 (byte 0xFF), written with the raw bytes.
        let webp = try Data(contentsOf: Fixtures.sample("image.webp"))
        let rawName = Array(inbox.path.utf8) + Array("/bad".utf8) + [0xFF] + Array(".webp".utf8) + [0]
        let descriptor = rawName.withUnsafeBufferPointer { name in
            name.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(descriptor >= 0)
        _ = webp.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)

        let report = folder.url.appendingPathComponent("report.json")
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--store", folder.url.appendingPathComponent("store").path,
                "--report", report.path
            ], timeout: 60)
        #expect(result.status == 0, "must not block on the FIFO: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let paths = Set((json["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        #expect(paths == ["-dash name with spaces.csv", "alias.webp", "looks-like.pdf/inside.webp", "new\nline.webp"])
        let skipped = Dictionary(uniqueKeysWithValues: (json["skipped"] as? [[String: String]] ?? []).map { ($0["path"]!, $0["reason"]!) })
        #expect(skipped["escape.pdf"]?.contains("outside") == true)
        #expect(skipped["pipe.mp4"]?.contains("FIFO") == true)
        #expect(skipped["loop"] != nil)
        #expect(skipped["bad\u{FFFD}.webp"]?.contains("not valid UTF-8") == true, "\(skipped)")
    }

    /// kill -9 at random moments, many times: the store stays consistent and a last run finishes everything.
    @Test(arguments: TestBackend.available) func killNineLeavesAConsistentStore(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = try copySamples(into: folder.url)
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<8 {
            let process = Process()
            process.executableURL = DocPreviewProcess.binary
            process.arguments = ["batch", inbox.path, "--store", store, "--jobs", "2"] + database
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 20_000...(round < 4 ? 400_000 : 1_200_000), using: &generator))  // the kill's random moment: what is tested
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // A kill between publishing a blob and committing its row leaves the blob unreferenced
            // (verify lists it, recover or the next run takes it); nothing may be damaged or missing.
            let verify = try DocPreviewProcess.run(["verify", "--store", store, "--json"] + database)
            for problem in ["damaged", "missing", "derivative_sources_missing", "index_problems"] {
                #expect((verify.json?[problem] as? [Any])?.isEmpty == true, "round \(round): \(verify.stdout)")
            }
        }
        let report = folder.url.appendingPathComponent("report.json")
        #expect(try DocPreviewProcess.run(["batch", inbox.path, "--store", store, "--report", report.path] + database).status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        let manifest = try ExpectationManifest.samples().entries
        #expect(summary["ok"] as? Int == manifest.filter { $0.expected == ["ok"] }.count)
        #expect(summary["no_preview"] as? Int == manifest.filter { $0.expected == ["no_preview"] }.count)
        // Every original is a document again; what a kill left between storing a derivative and
        // recording it (an office pivot is not made byte for byte again) is listed, for gc.
        let verify = try DocPreviewProcess.run(["verify", "--store", store, "--json"] + database)
        for problem in ["damaged", "missing", "derivative_sources_missing", "index_problems"] {
            #expect((verify.json?[problem] as? [Any])?.isEmpty == true, "\(verify.stdout)")
        }
        let unreferenced = verify.json?["unreferenced"] as? [[String: Any]] ?? []
        #expect(unreferenced.allSatisfy { $0["role"] as? String == "derivative" }, "\(verify.stdout)")
        let temporaries = try FileManager.default.contentsOfDirectory(atPath: store + "/tmp")
        let collected = try DocPreviewProcess.run(["gc", "--store", store, "--grace", "0", "--json"] + database)
        #expect((collected.json?["temporaries"] as? Int) == temporaries.count, "gc clears what kills left in tmp/")
    }

    @Test(arguments: TestBackend.available) func previewFromTheStoreIsLazyAndCached(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let address = try await backend.freshDatabase()
        let database = address.map { ["--database", $0] } ?? []
        let ingest = try #require(
            try DocPreviewProcess.run(
                [
                    "ingest", Fixtures.sample("document-5-pages.pdf").path, "--store", store,
                    "--owner", "ana", "--type", "resume", "--json"
                ] + database
            ).json)
        let id = try #require(ingest["document_id"] as? String)
        let sha = try #require(ingest["sha256"] as? String)
        let output = folder.url.appendingPathComponent("p4.png").path
        let first = try #require(
            try DocPreviewProcess.run(
                [
                    "preview", id, "--page", "4", "--width", "640", "--format", "png",
                    "--store", store, "-o", output, "--json"
                ] + database
            ).json)
        #expect(first["cached"] as? Bool == false && first["width"] as? Int == 640)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let again = try #require(
            try DocPreviewProcess.run(
                [
                    "preview", sha, "--page", "4", "--width", "640", "--format", "png",
                    "--store", store, "--json"
                ] + database
            ).json)
        #expect(again["cached"] as? Bool == true && again["sha256"] as? String == first["sha256"] as? String)
        let missing = try DocPreviewProcess.run(["preview", "nope", "--store", store, "--json"] + database)
        #expect((missing.json?["error"] as? [String: String])?["code"] == "not_found")
        let environment = try DocPreviewProcess.run(
            ["stats", "--json"],
            environment: ["DOCPREVIEW_STORE": store, "DOCPREVIEW_DATABASE": address ?? ""])
        #expect(environment.json?["documents"] as? Int == 1)
    }
}

/// `ingest` over every file of the shared corpus, all into one store from parallel processes.
@Suite(.blocking) struct CorpusIngestTests {
    static let store = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-corpus-store-\(UUID().uuidString)")
    static let entries = (try? ExpectationManifest.corpus())?.entries ?? []

    @Test(arguments: entries)
    func ingestOutcome(entry: ExpectationManifest.Entry) throws {
        let result = try DocPreviewProcess.run(
            ["ingest", "--json", "--timeout", String(corpusJobSeconds), "--store", Self.store.path, "--", entry.url.path],
            timeout: Double(corpusJobSeconds + 60))
        #expect([0, 3, 4].contains(result.status), "\(entry.file): exit \(result.status) \(result.stderr.suffix(300))")
        let json = try #require(result.json, "\(entry.file): no JSON")
        let status = json["status"] as? String ?? (json["error"] != nil ? "failed" : "?")
        let outcome = status == "ok" || status == "no_preview" ? status : ((json["error"] as? [String: String])?["code"] ?? "?")
        if let known = knownCorpusDisagreements[entry.file] {
            #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
        } else {
            #expect(entry.expected.contains(outcome), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
        }
    }
}
