import Crypto
import Foundation
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// Resumable uploads against `serve` on loopback, on both backends (blobs in a folder and in S3), by real clients: curl replaying
/// the header sets iOS 17 and iOS 18 send (curl prints the `104`), tuspy resuming from a new process
/// through its URL storage, an upload whose server is killed mid-transfer and restarted, and a
/// cancellation that ends the append still in flight.
@Suite(.blocking, .serialized) struct ResumableUploadServeTests {
    static let curl = URL(fileURLWithPath: "/usr/bin/curl")
    static let token = PlaybackServeTests.token
    static let auth = "Authorization: Bearer \(token)"

    static func curl(_ arguments: [String], timeout: Double = 120) throws -> DocPreviewProcess.Result {
        try DocPreviewProcess.run(["-sS"] + arguments, timeout: timeout, executable: curl)
    }

    /// A response header's value in curl's `-i` output (the last response with it).
    static func header(_ name: String, in output: String) -> String? {
        output.split(separator: "\r\n").last { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// `data` from `offset` on, in a file of `folder`.
    static func rest(of data: Data, from offset: Int, in folder: TemporaryFolder) throws -> String {
        let url = folder.url.appendingPathComponent("rest-\(offset)")
        try data[offset...].write(to: url)
        return url.path
    }

    /// Each backend with its blobs in a folder, and in S3 (SeaweedFS) unless the suite leaves S3 out.
    static let stores = TestBackend.available.flatMap { backend in TestBlobs.available.filter { $0 != .moto }.map { (backend, $0) } }

    /// `serve`'s arguments for a new store of `backend` with its blobs where `blobs` says.
    static func arguments(_ backend: TestBackend, _ blobs: TestBlobs) async throws -> [String] {
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        guard blobs == .s3 else { return database }
        return database + ["--blobs", try TestBlobs.address(prefix: "resumable-\(UUID().uuidString.lowercased())")]
    }

    @Test(arguments: stores) func iOSHeaderSetsResumeAfterTheConnectionDrops(backend: TestBackend, blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, extra: try await Self.arguments(backend, blobs),
            token: Self.token)
        let file = Fixtures.sample("image-cmyk.jpg")
        let bytes = try Data(contentsOf: file)
        // iOS 17 (interop 3) says what is still to come, iOS 18 and later (6) what is done.
        for (version, ending, appendType) in [(3, "Upload-Incomplete: ?0", nil), (6, "Upload-Complete: ?1", "application/partial-upload")] {
            let interop = "Upload-Draft-Interop-Version: \(version)"
            // The connection drops after about a fifth of the file (curl gives up).
            let sent = try Self.curl([
                "-i", "-H", "Expect:", "-H", Self.auth, "-H", interop, "-H", ending, "--limit-rate", "100K", "--max-time", "2",
                "--data-binary", "@\(file.path)", "\(server.base)/v1/documents?owner=ana&filename=photo.jpg&title=v\(version)"
            ])
            #expect(sent.stdout.hasPrefix("HTTP/1.1 104 Upload Resumption Supported"), "\(sent.stdout.prefix(300))")
            let location = try #require(Self.header("Location", in: sent.stdout))
            let head = try Self.curl(["-I", "-H", Self.auth, "-H", interop, location])
            let offset = try #require(Self.header("Upload-Offset", in: head.stdout).flatMap { Int($0) }, "\(head.stdout)")
            #expect(offset > 0 && offset < bytes.count, "the bytes that arrived were kept: \(offset)")
            var append = ["-i", "-X", "PATCH", "-H", Self.auth, "-H", interop, "-H", ending, "-H", "Upload-Offset: \(offset)"]
            if let appendType { append += ["-H", "Content-Type: \(appendType)"] }
            let resumed = try Self.curl(append + ["--data-binary", "@\(try Self.rest(of: bytes, from: offset, in: folder))", location])
            #expect(resumed.stdout.contains("HTTP/1.1 202 Accepted"), "\(resumed.stdout)")
            let id = try #require(Self.header("DocPreview-Document-ID", in: resumed.stdout))
            let document = try #require(try server.get("/v1/documents/\(id)").json)
            #expect(document["sha256"] as? String == Self.sha256(bytes), "the document is the file, once")
            #expect(document["title"] as? String == "v\(version)")
        }
    }

    @Test(arguments: stores) func tuspyResumesFromANewProcess(backend: TestBackend, blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, extra: try await Self.arguments(backend, blobs),
            token: Self.token)
        let file = Fixtures.sample("image-cmyk.jpg")
        let storage = folder.url.appendingPathComponent("tus-urls.json").path
        let script = Fixtures.packageRoot.appendingPathComponent("Tests/Uploads/tus_upload.py").path
        func upload(_ extra: [String]) throws -> [String: Any] {
            let run = try DocPreviewProcess.run(
                [
                    script, server.base, file.path, storage, "--chunk-size", "131072",
                    "--metadata", "owner=ana", "filename=photo.jpg", "title=From tuspy"
                ] + extra,
                environment: ["DOCPREVIEW_TOKEN": Self.token], timeout: 300, executable: PageWalkTests.python)
            #expect(run.status == 0, "\(run.stderr.suffix(2000))")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        }
        // The first process stops after 300,000 bytes, as an app whose connection went would.
        let first = try upload(["--stop-at", "300000"])
        #expect(first["offset"] as? Int == 300_000 && first["document_id"] is NSNull)
        let second = try upload([])
        #expect(second["url"] as? String == first["url"] as? String, "the second process resumed the same upload")
        let id = try #require(second["document_id"] as? String, "\(second)")
        let document = try #require(try server.get("/v1/documents/\(id)").json)
        #expect(document["sha256"] as? String == Self.sha256(try Data(contentsOf: file)) && document["title"] as? String == "From tuspy")
    }

    /// `serve` killed with SIGKILL while an append streams in: the restarted server resumes the
    /// upload from the last bytes made durable (within one checkpoint of what was sent), `gc`
    /// removes the part the killed request never counted, and the document is the file.
    @Test(arguments: TestBackend.available) func anUploadSurvivesAKillMidTransfer(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let video = folder.url.appendingPathComponent("highlight.mp4")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=8", "-c:v", "mpeg4", "-q:v", "1", video.path])
        let bytes = try Data(contentsOf: video)
        #expect(bytes.count > 10 << 20, "a file of several checkpoints")
        var server = try ServerProcess(store: store, extra: database, token: Self.token)
        let tus = ["-H", Self.auth, "-H", "Tus-Resumable: 1.0.0"]
        let created = try Self.curl(
            ["-i", "-X", "POST"] + tus + [
                "-H", "Upload-Length: \(bytes.count)", "-H",
                "Upload-Metadata: filename \(Data("highlight.mp4".utf8).base64EncodedString())", "\(server.base)/v1/uploads/tus"
            ])
        let path = try #require(Self.header("Location", in: created.stdout).flatMap { URL(string: $0)?.path })
        func offset(_ server: ServerProcess) throws -> Int {
            Self.header("Upload-Offset", in: try Self.curl(["-I"] + tus + [server.base + path]).stdout).flatMap { Int($0) } ?? -1
        }
        let append = try QuietProcess.start(
            Self.curl,
            ["-sS", "-X", "PATCH"] + tus + [
                "-H", "Upload-Offset: 0", "-H",
                "Content-Type: application/offset+octet-stream", "--limit-rate", "2M",
                "--data-binary", "@\(video.path)", server.base + path
            ])
        // What the index counts (a tus HEAD would end the append it asks about).
        try waitUntil("a checkpoint of the append", timeout: .seconds(120), interval: .milliseconds(50)) {
            (try server.get("/v1/stats").json?["staged_upload_bytes"] as? Int ?? 0) >= 4 << 20
        }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        append.waitUntilExit()
        server = try ServerProcess(store: store, extra: database, token: Self.token)
        let kept = try offset(server)
        #expect(kept >= 4 << 20 && kept < bytes.count, "resumed from what was made durable: \(kept)")
        let resumed = try Self.curl(
            ["-i", "-X", "PATCH"] + tus + [
                "-H", "Upload-Offset: \(kept)", "-H", "Content-Type: application/offset+octet-stream",
                "--data-binary", "@\(try Self.rest(of: bytes, from: kept, in: folder))", server.base + path
            ])
        let id = try #require(Self.header("DocPreview-Document-ID", in: resumed.stdout), "\(resumed.stdout)")
        #expect(try server.get("/v1/documents/\(id)").json?["sha256"] as? String == Self.sha256(bytes))
        let collected = try DocPreviewProcess.run(["gc", "--store", store, "--grace", "0", "--json"] + database)
        #expect(collected.status == 0, "\(collected.stderr)")
        let staged = try FileManager.default.subpathsOfDirectory(atPath: store + "/uploads").filter { $0.hasSuffix(".part") }
        #expect(staged.isEmpty, "the part the killed request never counted is gone: \(staged)")
    }

    /// `DELETE` while an append still streams: the append's connection is ended, the upload is
    /// gone (404) and so are its bytes.
    @Test func cancellingEndsTheAppendInFlight() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let server = try ServerProcess(store: store, token: Self.token)
        let file = Fixtures.sample("image-cmyk.jpg")
        let interop = ["-H", Self.auth, "-H", "Upload-Draft-Interop-Version: 6"]
        let created = try Self.curl(
            ["-i", "-X", "POST"] + interop + ["-H", "Upload-Complete: ?0", "\(server.base)/v1/uploads?owner=ana&filename=a.jpg"])
        let location = try #require(Self.header("Location", in: created.stdout))
        let id = try #require(location.split(separator: "/").last.map(String.init))
        let append = try QuietProcess.start(
            Self.curl,
            ["-sS", "-X", "PATCH"] + interop + [
                "-H", "Upload-Complete: ?1", "-H", "Upload-Offset: 0",
                "-H", "Content-Type: application/partial-upload", "--limit-rate", "20K",
                "--data-binary", "@\(file.path)", location
            ])
        let partFolder = store + "/uploads/" + id
        try waitUntil("the append's first bytes", timeout: .seconds(60)) {
            ((try? FileManager.default.contentsOfDirectory(atPath: partFolder)) ?? []).contains { name in
                ((try? FileManager.default.attributesOfItem(atPath: partFolder + "/" + name)[.size] as? Int) ?? 0) > 0
            }
        }
        let cancelled = try Self.curl(["-i", "-X", "DELETE"] + interop + [location])
        #expect(cancelled.stdout.hasPrefix("HTTP/1.1 204"), "\(cancelled.stdout)")
        append.waitUntilExit()
        #expect(append.terminationStatus != 0, "the append in flight was ended")
        #expect(try Self.curl(["-I"] + interop + [location]).stdout.hasPrefix("HTTP/1.1 404"))
        #expect(!FileManager.default.fileExists(atPath: partFolder), "its bytes are gone")
    }

    /// `docpreview upload` over a link that resets its connection every 2 MB, killed half-way and
    /// run again: the second run resumes the first's upload (its URL kept in the cache folder),
    /// each reset costs at most the bytes in flight, and the document is the file.
    @Test func theCLIResumesThroughResetsAndAcrossRuns() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, token: Self.token)
        let video = folder.url.appendingPathComponent("highlight.mp4")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=6", "-c:v", "mpeg4", "-q:v", "1", video.path])
        let bytes = try Data(contentsOf: video)
        let stats = folder.url.appendingPathComponent("link.json")
        let link = LoopbackPort.free()
        let relay = try QuietProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                Fixtures.packageRoot.appendingPathComponent("Tests/Uploads/impaired_relay.py").path, "--listen", "\(link)", "--to", "\(server.port)",
                "--stats", stats.path, "--reset-every", "2000000", "--rate", "4000000"
            ])
        defer { relay.killAndWait() }
        func sent() -> [String: Int] {
            (try? JSONSerialization.jsonObject(with: Data(contentsOf: stats))) as? [String: Int] ?? [:]
        }
        try waitUntil("the link to listen") { sent()["connections"] != nil }
        let upload = ["upload", video.path, "--server", "http://127.0.0.1:\(link)", "--owner", "ana", "--chunk-size", "1MB", "--json"]
        let environment = ["DOCPREVIEW_TOKEN": Self.token, "XDG_CACHE_HOME": folder.url.appendingPathComponent("cache").path]
        let first = try QuietProcess.start(DocPreviewProcess.binary, upload, environment: environment)
        try waitUntil("half of the file sent") { (sent()["upstream_bytes"] ?? 0) >= bytes.count / 2 || !first.isRunning }
        first.killAndWait()
        let second = try DocPreviewProcess.run(upload, environment: environment, timeout: 600)
        #expect(second.status == 0, "\(second.stdout)\n\(second.stderr)")
        #expect(second.stderr.contains("resuming highlight.mp4 at byte"), "the second run resumed the first's upload: \(second.stderr)")
        let answer = try #require(second.json, "\(second.stdout)")
        #expect(answer["sha256"] as? String == Self.sha256(bytes), "the document is the file")
        let wire = sent()
        let resets = wire["resets"] ?? 0
        #expect(resets >= 3, "the link reset the connection: \(wire)")
        // What a reset throws away is what was in flight: the link's and the sockets' buffers.
        #expect((wire["upstream_bytes"] ?? .max) <= bytes.count + (resets + 1) * (512 << 10), "bytes on the wire: \(wire), file \(bytes.count)")
    }
}
