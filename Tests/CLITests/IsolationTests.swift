import Foundation
import PreviewTestSupport
import Testing

/// Renders in `batch` run in child processes (RendererPool): a crash or a hang costs one file.
@Suite struct IsolationTests {
    /// A valid PDF carrying a test-hook marker (DOCPREVIEW_TEST_HOOKS=1 makes the child act on it).
    private func hookPDF(_ marker: String, in folder: URL) throws {
        let source = try Data(contentsOf: Fixtures.sample("document-5-pages.pdf"))
        let newline = try #require(source.firstIndex(of: 0x0A))
        var marked = source
        marked.insert(contentsOf: Data("%docpreview-test-\(marker)\n".utf8), at: newline + 1)
        try marked.write(to: folder.appendingPathComponent("\(marker).pdf"))
    }

    @Test func aCrashingAndAHangingFileCostOnlyThemselves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = folder.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try hookPDF("crash", in: inbox)
        try hookPDF("hang", in: inbox)
        for sample in ["video-h264.mp4", "photo-exif-orientation-6.jpg", "document-5-pages.pdf"] {
            try FileManager.default.copyItem(at: Fixtures.sample(sample), to: inbox.appendingPathComponent(sample))
        }
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"job_seconds": 3}}"#.utf8).write(to: config)
        let report = folder.url.appendingPathComponent("report.json")
        let started = Date()
        let result = try DocPreviewProcess.run(["batch", inbox.path, "--store", folder.url.appendingPathComponent("store").path,
                                                "--config", config.path, "--report", report.path],
                                               environment: ["DOCPREVIEW_TEST_HOOKS": "1"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(Date().timeIntervalSince(started) < 20, "the hang was not cut off at the 3 s deadline")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        func outcome(_ name: String) -> (status: String?, code: String?, message: String?) {
            let file = files.first { $0["path"] as? String == name }
            let error = file?["error"] as? [String: String]
            return (file?["status"] as? String, error?["code"], error?["message"])
        }
        #expect(outcome("crash.pdf").code == "corrupt")
        #expect(outcome("crash.pdf").message?.contains("signal 11") == true)
        #expect(outcome("hang.pdf").code == "timeout")
        for name in ["video-h264.mp4", "photo-exif-orientation-6.jpg", "document-5-pages.pdf"] {
            #expect(outcome(name).status == "ok", "\(name) suffered from its neighbours")
        }
        #expect(result.stderr.contains("renderer child crashed"), "the crash is logged")
    }

    @Test func isolatedAndInProcessBatchesAgree() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func outcomes(_ extra: [String], _ name: String) throws -> [String: String] {
            let report = folder.url.appendingPathComponent("\(name).json")
            let result = try DocPreviewProcess.run(["batch", Fixtures.samples.path, "--store", folder.url.appendingPathComponent(name).path,
                                                    "--report", report.path] + extra)
            #expect(result.status == 0, "\(result.stderr.suffix(2000))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
            let files = try #require(json["files"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: files.compactMap { file -> (String, String)? in
                guard let path = file["path"] as? String, !path.hasPrefix("large/") else { return nil }
                let code = (file["error"] as? [String: String])?["code"]
                return (path, "\(file["status"] ?? "?") \(code ?? "") \(file["sha256"] ?? "")")
            })
        }
        let isolated = try outcomes([], "isolated")
        let inProcess = try outcomes(["--in-process"], "in-process")
        #expect(isolated.count >= 29)
        #expect(isolated == inProcess)
    }
}

/// The whole shared corpus through one isolated `batch`: every outcome in the manifest's set (or a
/// documented disagreement), no crash of the batch, every file done within the job limit.
@Suite struct CorpusBatchTests {
    @Test func everyCorpusFileThroughOneBatch() throws {
        guard let manifest = try ExpectationManifest.corpus() else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = folder.url.appendingPathComponent("report.json")
        let result = try DocPreviewProcess.run(["batch", Fixtures.corpus.appendingPathComponent("files").path, "--timeout", "10",
                                                "--store", folder.url.appendingPathComponent("store").path, "--report", report.path],
                                               timeout: 300)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        #expect(files.count == manifest.entries.count)
        for entry in manifest.entries {
            let file = try #require(files.first { $0["path"] as? String == entry.file }, "\(entry.file) missing from the report")
            let status = file["status"] as? String ?? "?"
            let outcome = status == "ok" || status == "no_preview" ? status : ((file["error"] as? [String: String])?["code"] ?? "?")
            if let known = knownCorpusDisagreements[entry.file] {
                #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
            } else {
                #expect(entry.expected.contains(outcome), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
            }
            #expect((file["ms"] as? Double ?? 0) < 12_000, "\(entry.file) ran past the 10 s job limit")
        }
    }
}
