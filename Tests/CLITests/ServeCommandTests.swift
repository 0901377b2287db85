import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// A `docpreview serve` child process on a loopback port.
final class ServerProcess {
    let process = Process()
    let port: Int
    let store: String
    /// The bearer token `get` and `upload` send, when the server was started with one.
    let token: String?

    init(
        store: String, workers: Int = 2, extra: [String] = [], environment: [String: String] = [:], token: String? = nil,
        port: Int? = nil
    ) throws {
        self.store = store
        self.token = token
        self.port = port ?? LoopbackPort.free()
        process.executableURL = DocPreviewProcess.binary
        process.arguments = ["serve", "--store", store, "--host", "127.0.0.1", "--port", "\(self.port)", "--workers", "\(workers)"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(token.map { ["DOCPREVIEW_TOKEN": $0] } ?? [:]) { $1 }) {
            $1
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("the server to listen on \(self.port)") {
            guard process.isRunning else {
                throw CocoaError(
                    .featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the server exited with status \(process.terminationStatus)"])
            }
            return (try? get("/healthz").status) == 200
        }
    }

    /// Document `id` once its `status` is one of `statuses`.
    @discardableResult
    func document(_ id: String, reaching statuses: Set<String> = ["done", "failed"]) throws -> [String: Any] {
        try waitFor("document \(id) to be \(statuses.sorted().joined(separator: " or "))") {
            guard let document = try get("/v1/documents/\(id)").json, statuses.contains(document["status"] as? String ?? "") else { return nil }
            return document
        }
    }

    /// The server's renderer children now: each one's process id and whether it serves background calls.
    var renderers: [(pid: pid_t, background: Bool)] {
        let server = process.processIdentifier
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let name = stat.lastIndex(of: ")"), Int32(stat[stat.index(name, offsetBy: 4)...].prefix { $0 != " " }) == server,
                let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
            else { return nil }
            let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.dropFirst().first == "render-child" else { return nil }
            return (pid, arguments.contains("--background"))
        }
    }

    /// Whether the process exited within `timeout`.
    func exits(within timeout: Duration = .seconds(120)) -> Bool {
        (try? waitUntil("the server to exit", timeout: timeout) { !process.isRunning }) != nil
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func get(_ path: String) throws -> (status: Int, json: [String: Any]?) {
        try Self.send(authorized(URLRequest(url: URL(string: base + path)!)))
    }

    func upload(_ bytes: Data, query: String) throws -> (status: Int, json: [String: Any]?) {
        var request = URLRequest(url: URL(string: base + "/v1/documents?" + query)!)
        request.httpMethod = "POST"
        request.httpBody = bytes
        return try Self.send(authorized(request))
    }

    /// `request` with the server's token, if it has one.
    func authorized(_ request: URLRequest) -> URLRequest {
        var request = request
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    static func send(_ request: URLRequest) throws -> (status: Int, json: [String: Any]?) {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        var request = request
        request.timeoutInterval = 30
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }.resume()
        done.wait()
        return try box.get()
    }
}

final class ResultBox: @unchecked Sendable {  // written once by URLSession's callback, read after the semaphore
    private var data: Data?
    private var status: Int?
    private var error: (any Error)?

    func set(data: Data?, status: Int?, error: (any Error)?) {
        self.data = data
        self.status = status
        self.error = error
    }

    func get() throws -> (status: Int, json: [String: Any]?) {
        if let error { throw error }
        let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return (status ?? 0, json)
    }
}

@Suite(.blocking, .serialized) struct ServeCommandTests {
    /// Uploads in parallel, SIGKILL mid-way, restart on the same store: every acknowledged upload
    /// reaches `done`, once, with its blobs; no document is duplicated.
    @Test(arguments: TestBackend.available) func acknowledgedUploadsSurviveSIGKILL(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let samples = ["document-5-pages.pdf", "image.webp", "photo-exif-orientation-6.jpg", "video-h264.mp4", "stats.csv", "image-alpha.png"]
        let payloads = try samples.map { try Data(contentsOf: Fixtures.sample($0)) }
        let acknowledged = Acknowledged()
        var server: ServerProcess? = try ServerProcess(store: store, extra: database)
        let port = server!.port
        let pid = server!.process.processIdentifier
        let uploads = 120
        // The kill comes after a random number of acknowledgements, while more uploads stream in
        // and workers render.
        let killAfter = Int.random(in: 10...40)
        DispatchQueue.global().async {
            try? waitUntil("\(killAfter) acknowledged uploads", interval: .milliseconds(2)) { acknowledged.all.count >= killAfter }
            kill(pid, SIGKILL)
        }
        DispatchQueue.concurrentPerform(iterations: uploads) { index in
            let sample = index % samples.count
            var request = URLRequest(
                url: URL(string: "http://127.0.0.1:\(port)/v1/documents?owner=e2e&title=upload-\(index)&filename=\(samples[sample])")!)
            request.httpMethod = "POST"
            request.httpBody = payloads[sample]
            if let result = try? ServerProcess.send(request), result.status == 202, let id = result.json?["document_id"] as? String {
                acknowledged.add(title: "upload-\(index)", id: id)
            }
        }
        server!.process.waitUntilExit()
        server = nil
        let ids = acknowledged.all
        #expect(!ids.isEmpty, "some uploads were acknowledged before the kill")
        #expect(ids.count < uploads, "the kill interrupted the uploads")

        let restarted = try ServerProcess(store: store, extra: database)
        var pending = Set(ids.values)
        try? waitUntil("every acknowledged upload to be done after the restart", interval: .milliseconds(200)) {
            for id in pending where (try? restarted.get("/v1/documents/\(id)").json?["status"] as? String) == "done" { pending.remove(id) }
            return pending.isEmpty
        }
        #expect(pending.isEmpty, "acknowledged but not done: \(pending)")
        for (title, id) in ids {
            let document = try #require(try restarted.get("/v1/documents/\(id)").json, "\(title)")
            #expect(document["title"] as? String == title)
            #expect(try restarted.get("/v1/documents/\(id)/preview").status == (document["preview_status"] as? String == "no_preview" ? 415 : 200))
        }
        kill(restarted.process.processIdentifier, SIGTERM)
        restarted.process.waitUntilExit()

        let listing = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"] + database)
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        // A video's playback job follows its preview job: the preview jobs are one per document.
        let perDocument = Dictionary(grouping: jobs.filter { $0["kind"] as? String == "preview" }, by: { $0["document_id"] as? String ?? "" })
        for id in ids.values {
            #expect(perDocument[id]?.count == 1, "one preview job per document")
            #expect(perDocument[id]?.first?["status"] as? String == "done")
        }
        let stats = try #require(try DocPreviewProcess.run(["stats", "--store", store, "--owner", "e2e", "--json"] + database).json)
        #expect((stats["versions"] as? Int ?? 0) >= ids.count, "uploads committed just before the kill may exist unacknowledged")
        #expect(stats["versions"] as? Int == stats["documents"] as? Int, "no title was stored twice")
        // An upload cut by the kill after its blob was published left that blob unreferenced (never
        // acknowledged; `recover` would make it a document): nothing may be damaged or missing.
        let verify = try DocPreviewProcess.run(["verify", "--store", store, "--json"] + database)
        for problem in ["damaged", "missing", "derivative_sources_missing", "index_problems"] {
            #expect((verify.json?[problem] as? [Any])?.isEmpty == true, "\(verify.stdout)")
        }
        print(
            "e2e (\(backend)): \(uploads) uploads, \(ids.count) acknowledged before SIGKILL, \(stats["versions"] ?? 0) stored, all acknowledged done")
    }

    /// DESIGN §11 on one machine: a server that only takes uploads, worker processes on one
    /// PostgreSQL queue and one store folder. The worker holding a job (kept busy by the hang test
    /// hook) is SIGKILLed; a new worker takes the job over at once and every upload ends with one job.
    @Test(.enabled(if: TestBackend.available.contains(.postgres)))
    func aKilledWorkersJobIsTakenOverOnASharedPostgresQueue() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let server = try ServerProcess(store: store, workers: 0, extra: ["--database", database])
        var ids: [String] = []
        for (index, name) in ["document-5-pages.pdf", "image.webp", "video-h264.mp4", "image-alpha.png", "stats.csv"].enumerated() {
            let result = try server.upload(try Data(contentsOf: Fixtures.sample(name)), query: "title=w\(index)&filename=\(name)")
            ids.append(try #require(result.json?["document_id"] as? String))
        }
        let hanging = try Fixtures.hookPDF("hang")
        let hangID = try #require(try server.upload(hanging, query: "title=hang&filename=hang.pdf").json?["document_id"] as? String)

        func startWorker() throws -> Process {
            let worker = Process()
            worker.executableURL = DocPreviewProcess.binary
            // 10 s: an office child's first start on two cores busy with other suites fits; the hanging job's does not.
            worker.arguments = ["worker", "--store", store, "--database", database, "--concurrency", "1", "--timeout", "10"]
            worker.environment = ProcessInfo.processInfo.environment.merging(["DOCPREVIEW_TEST_HOOKS": "1"]) { $1 }
            worker.standardError = FileHandle.nullDevice
            try worker.run()
            return worker
        }
        var workers = try [startWorker(), startWorker()]
        defer { for worker in workers where worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        /// The preview jobs (the video's playback job follows its own).
        func jobs() throws -> [[String: Any]] {
            let listing = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--database", database, "--json"])
            let all = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
            return all.filter { $0["kind"] as? String == "preview" }
        }
        let leased = try waitFor("the hanging job to be leased") {
            try jobs().first { $0["document_id"] as? String == hangID && $0["status"] as? String == "processing" }
        }
        let owner = try #require(leased["lease_owner"] as? String)
        let leaseEnd = try #require((leased["lease_expires_at"] as? String).flatMap(Self.date), "\(leased)")
        let pid = try #require(Int32(owner.split(separator: "/")[1]), "\(owner)")
        let victim = try #require(workers.first { $0.processIdentifier == pid })
        kill(pid, SIGKILL)
        victim.waitUntilExit()
        workers.append(try startWorker())
        _ = try waitFor("another worker to take the hanging job over") {
            try jobs().first {
                $0["document_id"] as? String == hangID && $0["status"] as? String == "processing" && $0["lease_owner"] as? String != owner
            }
        }
        #expect(Date() < leaseEnd, "taken over before the dead worker's lease ran out, as its owner is known dead")

        var final: [String: [String: Any]] = [:]
        try? waitUntil("every job to end", interval: .milliseconds(200)) {
            for job in try jobs() where ["done", "failed"].contains(job["status"] as? String ?? "") {
                final[job["document_id"] as? String ?? ""] = job
            }
            return final.count == ids.count + 1
        }
        #expect(try jobs().count == ids.count + 1, "one job per upload")
        for id in ids { #expect(final[id]?["status"] as? String == "done") }
        let taken = try #require(final[hangID], "the killed worker's job was not finished")
        #expect(taken["attempts"] as? Int == 2, "taken over once, the killed attempt counted")
        #expect(taken["error_code"] as? String == "timeout")
        #expect(try DocPreviewProcess.run(["verify", "--store", store, "--database", database]).status == 0)
    }

    /// SIGTERM while a job hangs (test hook): the server stops within the drain time (10 s) and a
    /// margin, exits 0, and the job is back in the queue with its attempt not counted.
    @Test(arguments: TestBackend.available) func sigtermReleasesAJobThatDoesNotFinish(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let server = try ServerProcess(store: store, workers: 1, extra: database, environment: ["DOCPREVIEW_TEST_HOOKS": "1"])
        let pdf = try Fixtures.hookPDF("hang")
        let id = try #require(try server.upload(pdf, query: "filename=hang.pdf").json?["document_id"] as? String)
        try server.document(id, reaching: ["processing"])

        kill(server.process.processIdentifier, SIGTERM)
        // The job hangs for ever: ending at all shows the drain (10 s) gave it up.
        #expect(server.exits(), "the drain did not end")
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        let listing = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"] + database)
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        let job = try #require(jobs.first { $0["document_id"] as? String == id })
        #expect(job["status"] as? String == "queued", "\(job)")
        #expect(job["attempts"] as? Int == 0, "the attempt of a released job is not counted: \(job)")
    }

    /// The database held by another client (SQLite: an open write transaction; PostgreSQL: the
    /// jobs table locked against writes) while uploads pile up waiting for it: /healthz and a
    /// stored preview keep answering, because no request waits on the database on Swift's two
    /// cooperative threads.
    @Test(arguments: TestBackend.available) func aLockedDatabaseDoesNotFreezeTheServer(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase()
        let databaseArguments = database.map { ["--database", $0] } ?? []
        let ingested = try DocPreviewProcess.run(["ingest", Fixtures.sample("image.webp").path, "--store", store, "--json"] + databaseArguments)
        let id = try #require(ingested.json?["document_id"] as? String)
        let server = try ServerProcess(store: store, workers: 0, extra: databaseArguments)

        let holder = Process()
        if let database {
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            // holds the database 20 s: what the test is about
            holder.arguments = [database, "-q", "-c", "BEGIN; LOCK TABLE jobs IN EXCLUSIVE MODE; SELECT pg_sleep(20); COMMIT;"]
        } else {
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = [
                "python3", "-c",
                "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                    + "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); time.sleep(20)", store + "/index.sqlite"
            ]  // holds it 20 s
        }
        let said = Pipe()
        holder.standardOutput = said
        try holder.run()
        defer { holder.waitUntilExit() }
        if let database {
            try waitUntil("the jobs table to be locked") {
                let locks = Process()
                let output = Pipe()
                locks.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
                locks.arguments = [
                    database, "-At", "-c",
                    "SELECT count(*) FROM pg_locks WHERE relation = 'jobs'::regclass AND mode = 'ExclusiveLock' AND granted"
                ]
                locks.standardOutput = output
                try locks.run()
                locks.waitUntilExit()
                return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("1")
            }
        } else {
            let held = String(decoding: said.fileHandleForReading.availableData, as: UTF8.self)
            #expect(held.contains("held"), "the database is held: \(held)")
        }
        let uploads = DispatchGroup()
        for index in 0..<6 {
            var upload = URLRequest(url: URL(string: server.base + "/v1/documents?filename=n\(index).txt&title=n\(index)")!)
            upload.httpMethod = "POST"
            upload.httpBody = Data("notes \(index)\n".utf8)
            let request = upload
            DispatchQueue.global().async(group: uploads) { _ = try? ServerProcess.send(request) }
        }
        usleep(500_000)  // the uploads reach the server and wait on the database: nothing outside tells a waiting request from a slow one
        // Asked on connections of their own: URLSession would queue them behind the six uploads.
        var slowest: [Double] = []
        for _ in 0..<5 {
            for path in ["/healthz", "/v1/documents/\(id)/preview"] {
                let started = Date()
                let socket = try RawConnection(port: server.port)
                socket.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                #expect(socket.readStatus() == 200, "\(path)")
                socket.close()
                slowest.append(Date().timeIntervalSince(started))
            }
            usleep(200_000)  // pacing: the probes spread over the database's hold, no event to wait for
        }
        slowest.sort()
        // Held for 20 s: a server that waited on the database would answer only once it is let go.
        #expect(holder.isRunning, "the database was still held while the server was asked")
        #expect(slowest[slowest.count / 2] < 1, "median \(slowest[slowest.count / 2]) s")
        #expect(slowest.last! < 5, "slowest \(slowest.last!) s")
        uploads.wait()
    }

    @Test func sigtermDrainsAndExitsZero() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path)
        for index in 0..<4 {
            let result = try server.upload(try Data(contentsOf: Fixtures.sample("video-h264.mp4")), query: "title=t\(index)&filename=v.mp4")
            #expect(result.status == 202)
        }
        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.exits(), "the drain did not end")
        #expect(server.process.terminationStatus == 0)
    }

    /// SIGTERM with a slow upload in flight: nothing new is accepted from the signal on, the upload
    /// is cut (unacknowledged) after the grace, and the process exits soon after.
    @Test func sigtermWithASlowUploadExitsWithinTheGrace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1, extra: ["--grace", "2"])
        let slow = try RawConnection(port: server.port)
        defer { slow.close() }
        slow.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n")
        let waiting = try RawConnection(port: server.port)
        defer { waiting.close() }
        try Self.waitForStaging(folder, count: 1)
        kill(server.process.processIdentifier, SIGTERM)
        try waitUntil("the drain to begin") { (try? server.get("/healthz").status) != 200 }
        waiting.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let answer = waiting.readStatus()
        #expect(answer == nil || answer == 503, "a request after SIGTERM got \(String(describing: answer))")
        // The upload never ends: exiting at all shows the 2 s grace cut it off.
        #expect(server.exits(), "the server was still running after SIGTERM with a 2 s grace")
        #expect(server.process.terminationStatus == 0)
        #expect(slow.readStatus() != 202, "the cut upload was acknowledged")
    }

    @Test func declaredOversizeIsRefusedBeforeTheBodyIsRead() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-size", "1MB"])
        let big = Data(count: 2 * 1024 * 1024)
        let result = try server.upload(big, query: "filename=big.pdf")
        #expect(result.status == 413)
        #expect((result.json?["error"] as? [String: String])?["message"] == "File exceeds 1MB limit.")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path + "/store/tmp").isEmpty)
    }

    /// Every corpus file uploaded to one server: an outcome in the manifest's set (or a documented
    /// disagreement) for each, and the server still up at the end.
    @Test func everyCorpusFileThroughTheServer() throws {
        guard let manifest = try ExpectationManifest.corpus() else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 2,
            extra: ["--timeout", String(corpusJobSeconds)])
        var outcomes: [String: String] = [:]
        var pending: [String: String] = [:]  // document id → file
        for entry in manifest.entries {
            let name = entry.file.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "upload"
            // FileHandle, not Data(contentsOf:): on Linux the latter leaks its buffer for empty files.
            let handle = try FileHandle(forReadingFrom: entry.url)
            let bytes = try handle.readToEnd() ?? Data()
            try handle.close()
            let result = try server.upload(bytes, query: "filename=\(name)&title=\(name)")
            if result.status == 202, let id = result.json?["document_id"] as? String {
                pending[id] = entry.file
            } else {
                outcomes[entry.file] = (result.json?["error"] as? [String: String])?["code"] ?? "HTTP \(result.status)"
            }
        }
        try? waitUntil("every corpus upload to end", timeout: .seconds(600), interval: .milliseconds(200)) {
            for (id, file) in pending {
                guard let document = try server.get("/v1/documents/\(id)").json, let status = document["status"] as? String,
                    status == "done" || status == "failed"
                else { continue }
                let preview = document["preview_status"] as? String
                outcomes[file] =
                    status == "done"
                    ? (preview == "no_preview" ? "no_preview" : "ok")
                    : ((document["error"] as? [String: String])?["code"] ?? "?")
                pending[id] = nil
            }
            return pending.isEmpty
        }
        #expect(pending.isEmpty, "not processed in time: \(pending.values.sorted())")
        for entry in manifest.entries {
            guard let outcome = outcomes[entry.file] else { continue }
            if let known = knownCorpusDisagreements[entry.file] {
                #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
            } else {
                #expect(entry.expected.contains(outcome), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
            }
        }
        #expect(try server.get("/healthz").status == 200)
        #expect(server.process.isRunning)
    }

    /// Bodies that never end or never complete a part, streamed over a real connection: each is
    /// answered with a 4xx long before it is all sent, and the server stays up with nothing staged.
    @Test func hostileBodiesAreCutOffWhileTheyStream() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-size", "1MB"])
        let residentBefore = Self.peakResidentMegabytes(server.process.processIdentifier)
        let kilobyte = [UInt8](repeating: 0x41, count: 1024)
        let form = "POST /v1/documents HTTP/1.1\r\nHost: localhost\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n"
        let raw = "POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
        let cases: [(name: String, head: String, first: String, repeating: [UInt8], status: Int)] = [
            ("32 MiB Content-Disposition", form, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"", kilobyte, 400),
            ("250,000 small fields", form, "", Array("--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n".utf8), 400),
            (
                "endless epilogue", form, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\r\n--b--\r\n",
                kilobyte, 400
            ),
            ("endless preamble", form, "", kilobyte, 400),
            ("chunked raw body past the limit", raw, "%PDF-1.4\n", kilobyte, 413)
        ]
        for test in cases {
            let socket = try RawConnection(port: server.port)
            defer { socket.close() }
            let count = test.name.hasPrefix("250,000") ? 250_000 : 32 * 1024
            let pieces = [Array(test.first.utf8)] + AnySequence { (0..<count).lazy.map { _ in test.repeating }.makeIterator() }
            let answer = socket.streamChunked(head: test.head, pieces: pieces)
            #expect(answer.status == test.status, "\(test.name): \(String(describing: answer.status))")
            // Socket buffers on loopback take a few MiB before the server's answer is seen.
            let total = count * test.repeating.count
            #expect(answer.sent < total / 2, "\(test.name): \(answer.sent) of \(total) bytes went out before the answer")
        }
        #expect((try? server.get("/healthz").status) == 200, "the server still answers")
        let peak = Self.peakResidentMegabytes(server.process.processIdentifier)
        print("hostile bodies: server peak RSS \(peak) MB before \(residentBefore) MB")
        #expect(peak - residentBefore < 48, "memory grew from \(residentBefore) to \(peak) MB")
        try Self.waitForStaging(folder, count: 0)
    }

    /// Waits until `count` uploads are being staged in the store's `tmp/` (0: every staged file removed).
    static func waitForStaging(_ folder: TemporaryFolder, count: Int) throws {
        let tmp = folder.url.path + "/store/tmp"
        try waitUntil("\(count) files staged in \(tmp)") { ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).count == count }
    }

    /// A date as the CLI's JSON writes it (ISO 8601, with or without fractions of a second).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }

    /// The process's peak resident memory (VmHWM), in MB.
    private static func peakResidentMegabytes(_ pid: Int32) -> Int {
        residentMegabytes(pid, field: "VmHWM:")
    }

    private static func residentMegabytes(_ pid: Int32, field: String = "VmRSS:") -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// The server's established TCP connections on `port` (its side of them), from /proc/net/tcp.
    private static func establishedConnections(port: Int) -> Int {
        // Read to the end: /proc files report no size, and a sized read stops after the first page.
        let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let local = String(format: ":%04X", port)
        return table.split(separator: "\n").dropFirst().count { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(local) && fields[3] == "01"
        }
    }

    /// Clients that ask for a large original and never read: each holds a few chunks, not the file,
    /// and is closed after the idle timeout; the server's memory comes back when they are gone.
    @Test func downloadsThatAreNotReadAreBoundedAndClosed() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A hundred clients from one address: more than an address's share of connections by default.
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0,
            extra: ["--idle-timeout", "4", "--max-connections-per-client", "200"])
        let payload = String(repeating: "0123456789abcdef", count: 24 << 16)
        let large = PDFWriter.document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
            "<< /Length \(payload.utf8.count) >>\nstream\n\(payload)\nendstream"
        ])
        let id = try #require(try server.upload(Data(large), query: "filename=large.pdf").json?["document_id"] as? String)
        let pid = server.process.processIdentifier
        let baseline = Self.residentMegabytes(pid)
        var clients: [RawConnection] = []
        for _ in 0..<100 {
            let client = try RawConnection(port: server.port, receiveBuffer: 4096)
            client.send("GET /v1/documents/\(id)/content HTTP/1.1\r\nHost: localhost\r\n\r\n")
            clients.append(client)
        }
        sleep(2)  // the server fills what each socket takes, then stalls: no event marks the end of that
        let stalled = Self.residentMegabytes(pid)
        #expect(stalled - baseline < 100, "100 stalled downloads of a 24 MB file took \(stalled - baseline) MB")
        #expect(Self.establishedConnections(port: server.port) >= 100)
        try? waitUntil("the idle timeout to close the clients that do not read") { Self.establishedConnections(port: server.port) == 0 }
        #expect(Self.establishedConnections(port: server.port) == 0, "the server closed the clients that do not read")
        for client in clients { client.close() }
        try? waitUntil("memory to come back", timeout: .seconds(30)) { Self.residentMegabytes(pid) - baseline < 40 }
        #expect(Self.residentMegabytes(pid) - baseline < 40, "memory comes back after the clients are gone")
        #expect(try server.get("/healthz").status == 200)
    }

    /// A client that asks for an uncached page and hangs up before the server gets to it costs no
    /// render (the test hook holds each preview 0.5 s before it checks on its client).
    @Test func aDisconnectedClientsRenderIsNotStarted() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, environment: ["DOCPREVIEW_TEST_HOOKS": "1"])
        let id = try #require(
            try server.upload(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")), query: "filename=d.pdf")
                .json?["document_id"] as? String)
        try server.document(id, reaching: ["done"])
        // Its text job follows the preview job, and adds its derivative: counted before the page.
        try waitUntil("the document's text to be read") { try server.get("/v1/documents/\(id)/text").status == 200 }
        func previews() throws -> Int { try server.get("/v1/stats").json?["previews"] as? Int ?? -1 }
        let before = try previews()

        let socket = try RawConnection(port: server.port)
        socket.send("GET /v1/documents/\(id)/preview?page=3&width=1024 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        socket.close()
        usleep(1_500_000)  // no event ends a wait for what must not happen: the hook holds the preview 0.5 s, then looks for its client
        #expect(try previews() == before, "a page was rendered for a client that had gone")

        #expect(try server.get("/v1/documents/\(id)/preview?page=4&width=1024").status == 200)
        // Stored once answered (2 s after, under the test hooks).
        try? waitUntil("the answered render to be stored") { try previews() != before }
        #expect(try previews() == before + 1, "a client that stays gets its render")
    }

    /// With `--max-uploads 1`, a second upload while one is still arriving is told to come back.
    @Test func uploadsBeyondTheCapAreAskedToRetry() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-uploads", "1"])
        let slow = try RawConnection(port: server.port)
        defer { slow.close() }
        slow.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n")
        try Self.waitForStaging(folder, count: 1)
        let second = try RawConnection(port: server.port)
        defer { second.close() }
        second.send("POST /v1/documents?filename=b.txt HTTP/1.1\r\nHost: localhost\r\nContent-Length: 6\r\n\r\nnotes\n")
        #expect(second.readStatus() == 429)
    }

    /// Slow uploaders holding every slot (a byte now and then, inside the idle timeout) give their
    /// slots up to honest uploads once they have been slow for the grace period.
    @Test func slowUploadersLeaveRoomForHonestOnes() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0,
            extra: ["--max-uploads", "4", "--max-uploads-per-client", "4"])
        var slow: [RawConnection] = []
        for _ in 0..<4 {
            let connection = try RawConnection(port: server.port)
            connection.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%")
            slow.append(connection)
        }
        defer { slow.forEach { $0.close() } }
        try Self.waitForStaging(folder, count: 4)
        #expect(
            try server.upload(try Data(contentsOf: Fixtures.sample("image.webp")), query: "filename=a.webp").status == 429,
            "every slot is taken, and nobody has been slow for long yet")
        sleep(3)  // the server's own 2 s grace, on its own clock (a process of its own): nothing to wait for but time
        for index in 0..<6 {
            let status = try server.upload(try Data(contentsOf: Fixtures.sample("image.webp")), query: "filename=a.webp&title=t\(index)").status
            #expect(status == 202, "honest upload \(index): \(status)")
        }
    }

    @Test func aStalledUploadIsCutOffAndLeavesNothingBehind() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--idle-timeout", "1"])
        // Promise 100 kB, send 10 bytes, then nothing.
        let socket = try RawConnection(port: server.port)
        defer { socket.close() }
        socket.send("POST /v1/documents?filename=a.pdf HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n%PDF-1.7\n\n")
        #expect(socket.waitForClose(seconds: 60), "the server kept a stalled upload open")
        #expect((try? server.get("/healthz").status) == 200, "the server still answers")
        try Self.waitForStaging(folder, count: 0)
    }

    /// DNS rebinding: a page on the attacker's name, resolved to this loopback server, sends its name as `Host`.
    @Test func aRebindingHostIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--public-host", "previews.example.org"])
        for (host, status) in [
            ("rebind.attacker.example:\(server.port)", 421), ("localhost:\(server.port)", 200),
            ("127.0.0.1:\(server.port)", 200), ("previews.example.org", 200)
        ] {
            let connection = try RawConnection(port: server.port)
            defer { connection.close() }
            connection.send("GET /v1/stats HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\n\r\n")
            #expect(connection.readStatus() == status, "\(host)")
        }
    }

    /// One stranger's four slow PDFs (the same bytes under new titles) and another owner's image:
    /// the image is done within seconds, the PDFs fail with `timeout` at the page budget, and the
    /// three after the first fail without drawing again.
    @Test func slowPDFsDoNotHoldUpAnotherOwnersImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("limits.json")
        try Data(#"{"limits": {"page_seconds": 3}}"#.utf8).write(to: config)
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, extra: ["--config", config.path])
        let slow = Data(SlowPDF.make())
        var pdfs: [String] = []
        for index in 0..<4 {
            let accepted = try server.upload(slow, query: "filename=slow.pdf&owner=stranger&title=slow-\(index)")
            pdfs.append(try #require(accepted.json?["document_id"] as? String))
        }
        let started = Date()
        let image = try #require(
            try server.upload(
                try Data(contentsOf: Fixtures.sample("image-alpha.png")),
                query: "filename=a.png&owner=coach"
            ).json?["document_id"] as? String)
        func status(_ id: String) throws -> String? { try server.get("/v1/documents/\(id)").json?["status"] as? String }
        try server.document(image, reaching: ["done"])
        // Bounds far above a fair wait (one 3 s page budget, in CPU time) and below an unfair one on
        // a loaded machine: behind all four PDFs drawn in turn.
        #expect(Date().timeIntervalSince(started) < 30, "the image waited behind the slow PDFs")
        try? waitUntil("the slow PDFs to fail") { try pdfs.allSatisfy { try status($0) == "failed" } }
        for id in pdfs {
            let document = try #require(try server.get("/v1/documents/\(id)").json)
            #expect((document["error"] as? [String: Any])?["code"] as? String == "timeout", "\(document)")
        }
        #expect(Date().timeIntervalSince(started) < 60, "remembered timeouts fail at once")
    }
}

private final class Acknowledged: @unchecked Sendable {  // guarded by its lock
    private let lock = NSLock()
    private var ids: [String: String] = [:]

    func add(title: String, id: String) {
        lock.lock()
        ids[title] = id
        lock.unlock()
    }

    var all: [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return ids
    }
}
