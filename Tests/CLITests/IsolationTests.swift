import Foundation
import PreviewTestSupport
import Testing

/// Renders in `batch` run in child processes (RendererPool): a crash or a hang costs one file.
@Suite(.blocking) struct IsolationTests {
    /// A valid PDF carrying a test-hook marker (DOCPREVIEW_TEST_HOOKS=1 makes the child act on it).
    private func hookPDF(_ marker: String, in folder: URL) throws {
        try Fixtures.hookPDF(marker).write(to: folder.appendingPathComponent("\(marker).pdf"))
    }

    /// `folder/inbox` with a hook PDF for each marker and a copy of each sample.
    private func inbox(in folder: TemporaryFolder, hooks: [String], samples: [String] = []) throws -> URL {
        let inbox = folder.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        for marker in hooks { try hookPDF(marker, in: inbox) }
        for sample in samples { try FileManager.default.copyItem(at: Fixtures.sample(sample), to: inbox.appendingPathComponent(sample)) }
        return inbox
    }

    @Test func aCrashingAndAHangingFileCostOnlyThemselves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = try inbox(
            in: folder, hooks: ["crash", "hang"],
            samples: ["video-h264.mp4", "photo-exif-orientation-6.jpg", "document-5-pages.pdf"])
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"job_seconds": 3}}"#.utf8).write(to: config)
        let report = folder.url.appendingPathComponent("report.json")
        let started = Date()
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--store", folder.url.appendingPathComponent("store").path,
                "--config", config.path, "--report", report.path
            ],
            environment: ["DOCPREVIEW_TEST_HOOKS": "1"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(Date().timeIntervalSince(started) < 45, "the hang was not cut off at the 3 s deadline")  // an uncut hang runs to the 60 s kill
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

    /// What fuzzing found inside the C libraries and cannot be fixed here (Fuzz/findings, listed in its
    /// README): each is contained. Whether a finding still spins depends on the library's point
    /// release (a fixed FFmpeg renders it), so what is asserted is containment: the batch ends
    /// (within the run's bound, far below what an unbounded spin would take), each finding ends as
    /// `ok`, `timeout` or `corrupt`, and its neighbour is served.
    @Test func fuzzFindingsInTheLibrariesCostOnlyThemselves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let findings = Fixtures.packageRoot.appendingPathComponent("Fuzz/findings")
        let names = try FileManager.default.contentsOfDirectory(atPath: findings.path).filter { $0 != "README.md" }.sorted()
        #expect(!names.isEmpty)
        let inbox = try inbox(in: folder, hooks: [], samples: ["image.webp"])
        for name in names { try FileManager.default.copyItem(at: findings.appendingPathComponent(name), to: inbox.appendingPathComponent(name)) }
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"job_seconds": 2}}"#.utf8).write(to: config)
        let report = folder.url.appendingPathComponent("report.json")
        // Killed (status 137) past the bound: a spin that the deadline did not stop.
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--store", folder.url.appendingPathComponent("store").path,
                "--config", config.path, "--report", report.path
            ], timeout: 240)
        #expect(result.status == 0, "the batch ended: \(result.status) \(result.stderr.suffix(1000))")
        let files = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["files"] as? [[String: Any]])
        #expect(Set(files.compactMap { $0["path"] as? String }) == Set(names + ["image.webp"]), "every file has its outcome")
        for file in files {
            let path = file["path"] as? String ?? ""
            let outcome = (file["error"] as? [String: String])?["code"] ?? (file["status"] as? String == "ok" ? "ok" : "failed")
            if path == "image.webp" {
                #expect(outcome == "ok", "the neighbour suffered: \(outcome)")
            } else {
                #expect(["ok", "timeout", "corrupt"].contains(outcome), "\(path): \(outcome)")
            }
        }
    }

    /// A child taken over by its file answers garbage (a 2 GiB frame): it is killed, that file
    /// fails, and the others are served by a new child.
    /// Renderer children killed from outside while idle (the OOM killer, an operator) are not blamed
    /// on the next file: a dead child is replaced before the call is sent.
    @Test func childrenKilledFromOutsideFailNoFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1)
        let image = try Data(contentsOf: Fixtures.sample("image-alpha.png"))
        func upload(_ title: String) throws -> String {
            try #require(try server.upload(image, query: "filename=a.png&title=\(title)").json?["document_id"] as? String)
        }
        func status(_ id: String) throws -> String? {
            try server.document(id)["status"] as? String
        }
        // A first upload starts the children.
        #expect(try status(upload("warm")) == "done")
        for round in 0..<4 {
            var killed = 0
            while let child = Self.renderChild(of: server.process.processIdentifier, within: 1) {
                kill(child, SIGKILL)
                killed += 1
                try waitUntil("the killed child to leave /proc") {
                    (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline")))?.isEmpty ?? true
                }
                if killed >= 4 { break }
            }
            #expect(killed > 0, "no idle child to kill in round \(round)")
            let id = try upload("round-\(round)")
            let document = try server.get("/v1/documents/\(id)").json
            #expect(try status(id) == "done", "round \(round): \(String(describing: document))")
        }
    }

    @Test func aChildThatAnswersGarbageIsStoppedAndCostsOnlyItsFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = try inbox(in: folder, hooks: ["garbage"], samples: ["video-h264.mp4", "image.webp"])
        let report = folder.url.appendingPathComponent("report.json")
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--jobs", "1", "--store", folder.url.appendingPathComponent("store").path,
                "--report", report.path
            ], environment: ["DOCPREVIEW_TEST_HOOKS": "1"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let files = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["files"] as? [[String: Any]])
        let statuses = Dictionary(uniqueKeysWithValues: files.map { ($0["path"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(statuses == ["garbage.pdf": "failed", "video-h264.mp4": "ok", "image.webp": "ok"])
        #expect(result.stderr.contains("malformed or oversized"), "\(result.stderr.suffix(1000))")
    }

    /// What a renderer child holds while it works on a stranger's file: read from /proc while one hangs.
    @Test func aChildInheritsNoSecretsNoDescriptorsAndNoNetwork() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = try inbox(in: folder, hooks: ["hang"])
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"job_seconds": 4}}"#.utf8).write(to: config)
        let batch = Process()
        batch.executableURL = DocPreviewProcess.binary
        batch.arguments = ["batch", inbox.path, "--jobs", "1", "--store", folder.url.appendingPathComponent("store").path, "--config", config.path]
        batch.environment = ProcessInfo.processInfo.environment.merging(
            ["DOCPREVIEW_TEST_HOOKS": "1", "DOCPREVIEW_TOKEN": "s3cret-token", "PGPASSWORD": "s3cret-password"]) { $1 }
        batch.standardOutput = FileHandle.nullDevice
        batch.standardError = FileHandle.nullDevice
        try batch.run()
        defer { batch.terminate(); batch.waitUntilExit() }

        let child = try #require(Self.renderChild(of: batch.processIdentifier, within: 10), "no render-child appeared")
        let environment = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/environ")), as: UTF8.self)
            .split(separator: "\0").map(String.init)
        #expect(!environment.contains { $0.contains("s3cret") }, "\(environment)")
        #expect(environment.allSatisfy { !$0.hasPrefix("HOME=") && !$0.hasPrefix("USER=") })
        // Beyond its pipes and stderr, only what the child's own runtime opened (its event loop's
        // epoll, eventfd and timerfd): none of the parent's sockets, database or staged files.
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd")
        let targets = Dictionary(
            uniqueKeysWithValues: descriptors.map {
                ($0, (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\($0)")) ?? "?")
            })
        #expect(targets["0"]?.hasPrefix("pipe:") == true && targets["1"]?.hasPrefix("pipe:") == true)
        for (descriptor, target) in targets where Int(descriptor)! > 2 {
            #expect(target.hasPrefix("anon_inode:"), "fd \(descriptor) → \(target)")
        }
        let limits = try String(contentsOfFile: "/proc/\(child)/limits", encoding: .utf8)
        #expect(limits.contains { _ in true } && Self.limit("Max core file size", in: limits) == "0")
        #expect(Self.limit("Max file size", in: limits) == "67108864")
        #expect(Self.limit("Max cpu time", in: limits) != "unlimited")
        let environmentHere = ProcessInfo.processInfo.environment
        if environmentHere["ASAN_OPTIONS"] == nil && environmentHere["TSAN_OPTIONS"] == nil {
            let status = try String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)
            #expect(status.contains("Seccomp:\t2"), "no system-call filter")
        }
        let network = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/ns/net")
        if getuid() == 0 {
            #expect(network != (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")), "the child shares our network")
        }
    }

    /// The first `render-child` process whose parent is `parent`, waiting up to `seconds`.
    private static func renderChild(of parent: Int32, within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let afterName = stat.range(of: ") ", options: .backwards)
                else { continue }
                let fields = stat[afterName.upperBound...].split(separator: " ")
                guard fields.count > 1, Int32(fields[1]) == parent,
                    let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                    String(decoding: command, as: UTF8.self).contains("render-child")
                else { continue }
                usleep(300_000)  // past the hook's open of its file
                return pid
            }
            usleep(50_000)  // polling /proc: a child's start sends this test no event
        }
        return nil
    }

    /// The soft value of one row of /proc/PID/limits.
    private static func limit(_ name: String, in limits: String) -> String? {
        limits.split(separator: "\n").first { $0.hasPrefix(name) }
            .map { $0.dropFirst(name.count).split(separator: " ").first.map(String.init) ?? "" }
    }

    @Test func isolatedAndInProcessBatchesAgree() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func outcomes(_ extra: [String], _ name: String) throws -> [String: String] {
            let report = folder.url.appendingPathComponent("\(name).json")
            let result = try DocPreviewProcess.run(
                [
                    "batch", Fixtures.samples.path, "--store", folder.url.appendingPathComponent(name).path,
                    "--report", report.path
                ] + extra)
            #expect(result.status == 0, "\(result.stderr.suffix(2000))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
            let files = try #require(json["files"] as? [[String: Any]])
            return Dictionary(
                uniqueKeysWithValues: files.compactMap { file -> (String, String)? in
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
@Suite(.blocking) struct CorpusBatchTests {
    @Test func everyCorpusFileThroughOneBatch() throws {
        guard let manifest = try ExpectationManifest.corpus() else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = folder.url.appendingPathComponent("report.json")
        let result = try DocPreviewProcess.run(
            [
                "batch", Fixtures.corpus.appendingPathComponent("files").path,
                "--timeout", String(corpusJobSeconds),
                "--store", folder.url.appendingPathComponent("store").path, "--report", report.path
            ],
            timeout: 900)
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
            // The deadline, and the kill and replacement of the child that follow it (2.2 s on a loaded machine).
            #expect((file["ms"] as? Double ?? 0) < Double(corpusJobSeconds + 15) * 1000, "\(entry.file) ran past the job limit")
        }
    }
}
