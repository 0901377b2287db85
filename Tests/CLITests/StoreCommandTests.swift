import Foundation
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// `verify`, `gc` and `recover` on a store whose index lost its write-ahead log.
@Suite(.blocking) struct StoreCommandTests {
    @Test func aLostWriteAheadLogIsReportedRefusedAndRecovered() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.appendingPathComponent("store")
        let store = ["--store", root.path]
        func run(_ arguments: [String]) throws -> DocPreviewProcess.Result { try DocPreviewProcess.run(arguments + store) }
        let index = root.appendingPathComponent("index.sqlite")
        #expect(try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana"]).status == 0)
        // The index as the last checkpoint left it; what follows lives in the log until the next one.
        let checkpointed = try Data(contentsOf: index)
        var lost: [String] = []
        for sample in ["document-5-pages.pdf", "video-h264.mp4"] {
            let ingested = try run(["ingest", Fixtures.sample(sample).path, "--owner", "ana", "--json"])
            lost.append(try #require(ingested.json?["sha256"] as? String, "\(ingested.stderr)"))
        }
        // A crash, and the log is cut: SQLite opens the checkpointed state without a word.
        try checkpointed.write(to: index)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index.path + suffix) }
        #expect(try run(["list", "--json"]).json?["documents"].map { ($0 as? [Any])?.count } == 1)

        let verify = try run(["verify", "--json"])
        #expect(verify.status == 1, "\(verify.stdout)")
        let unreferenced = try #require(verify.json?["unreferenced"] as? [[String: Any]])
        let lostOriginals = unreferenced.filter { $0["role"] as? String == "original" && $0["indexed"] as? Bool == false }
        #expect(Set(lostOriginals.compactMap { $0["sha256"] as? String }) == Set(lost))
        #expect(try run(["verify"]).stdout.contains("docpreview recover"), "the human report says what to do")

        for dryRun in [["--dry-run"], []] {
            let gc = try run(["gc", "--grace", "0"] + dryRun)
            #expect(gc.status == 1 && gc.stderr.contains("no row for 2 originals"), "\(gc.stderr)")
        }
        #expect(
            lost.allSatisfy { hash in
                FileManager.default.fileExists(
                    atPath: root.appendingPathComponent("objects/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)").path)
            })

        let recovered = try run(["recover", "--json"])
        let documents = try #require(recovered.json?["recovered"] as? [[String: Any]], "\(recovered.stderr)")
        #expect(Set(documents.compactMap { $0["sha256"] as? String }) == Set(lost))
        let listed = try run(["list", "--owner", "recovered", "--json"]).json?["documents"] as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["kind"] as? String } ?? []) == ["pdf", "mp4"])
        let gc = try run(["gc", "--grace", "0", "--json"])
        #expect(gc.status == 0, "with every original a document again, gc takes only the unreferenced thumbnails: \(gc.stderr)")
    }

    /// A zoom pyramid built on a full disk (its renderer child dies writing the tiles) is `507
    /// storage_full`, never `422 corrupt`, and nothing is remembered against the image: once there
    /// is room the same tile is made. On both backends (PostgreSQL kept the crash as the file's
    /// fault before issue 43).
    @Test(arguments: TestBackend.available) func aPyramidOnAFullDiskIs507AndNotRemembered(backend: TestBackend) async throws {
        let disk = try SmallDisk.mount(megabytes: 64)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Larger than two tiles, so its regions are cut from a pyramid made on first use.
        let photo = folder.url.appendingPathComponent("photo.jpg")
        _ = try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=3000x2000", "-frames:v", "1", photo.path])
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let server = try ServerProcess(store: disk.url.appendingPathComponent("store").path, workers: 1, extra: database)
        let id = try #require(try server.upload(try Data(contentsOf: photo), query: "filename=photo.jpg").json?["document_id"] as? String)
        try server.document(id, reaching: ["done"])
        let tile = "/iiif/3/\(id)/0,0,1024,1024/512,512/0/default.jpg"
        disk.fill()
        let full = try server.get(tile)
        disk.free()
        #expect(full.status == 507 && (full.json?["error"] as? [String: Any])?["code"] as? String == "storage_full", "\(full)")
        #expect(try server.get(tile).status == 200, "nothing was remembered against the image")
    }

    @Test func batchOnAFullDiskSaysSoAndReusesStoredFiles() throws {
        let disk = try SmallDisk.mount(megabytes: 16)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = folder.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        for sample in ["image.webp", "document-5-pages.pdf"] {
            try FileManager.default.copyItem(at: Fixtures.sample(sample), to: inbox.appendingPathComponent(sample))
        }
        let store = ["--store", disk.url.appendingPathComponent("store").path]
        #expect(try DocPreviewProcess.run(["batch", inbox.path] + store).status == 0)
        try FileManager.default.copyItem(at: Fixtures.sample("video-h264.mp4"), to: inbox.appendingPathComponent("film.mp4"))
        disk.fill()
        let report = folder.url.appendingPathComponent("report.json")
        let batch = try DocPreviewProcess.run(["batch", inbox.path, "--report", report.path] + store)
        disk.free()
        #expect(batch.status == 0, "\(batch.stderr) \(batch.stdout)")
        #expect(batch.stdout.contains("The store's disk is full: 1 files could not be stored"), "\(batch.stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        for file in files {
            let name = URL(fileURLWithPath: file["path"] as? String ?? "").lastPathComponent
            if name == "film.mp4" {
                let error = file["error"] as? [String: Any]
                #expect(file["status"] as? String == "failed" && error?["code"] as? String == "storage_full", "\(file)")
            } else {
                #expect(file["status"] as? String == "ok" && file["reused"] as? Bool == true, "\(name) is stored already: \(file)")
            }
        }
    }
}
