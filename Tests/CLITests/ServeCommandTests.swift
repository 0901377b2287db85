import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

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

}
