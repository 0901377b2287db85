import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// Playback work across restarts and a busy queue: backfill, a thumbnail ahead of a transcode, a transcode cut by a kill.
extension PlaybackServeTests {
    /// Videos stored without their playback work — by `ingest` without `--renditions`, or before
    /// schema v9 (no playback decision: a NULL column here) — get it from `jobs backfill`, which
    /// queues each video's job once; a server's workers then make the renditions.
    @Test func backfillGivesStoredVideosTheirPlayback() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        var ids: [String] = []
        for (name, seconds) in [("decided.avi", 4), ("undecided.avi", 5)] {
            let file = folder.url.appendingPathComponent(name)
            try MediaTools.aviClip(file, size: "320x240", seconds: seconds)
            let ingested = try DocPreviewProcess.run(["ingest", file.path, "--store", store, "--json"])
            ids.append(try #require(ingested.json?["document_id"] as? String, "\(ingested.stderr)"))
        }
        let forget = Process()
        forget.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        forget.arguments = [
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute('UPDATE documents SET playback = NULL WHERE id = ?', (sys.argv[2],)); c.commit()",
            folder.url.appendingPathComponent("store/index.sqlite").path, ids[1]
        ]
        try forget.run()
        forget.waitUntilExit()
        #expect(forget.terminationStatus == 0)
        let first = try DocPreviewProcess.run(["jobs", "backfill", "--store", store, "--json"])
        #expect(first.json?["playback"] as? Int == 1 && first.json?["probes"] as? Int == 1, "\(first.stdout) \(first.stderr)")
        let again = try DocPreviewProcess.run(["jobs", "backfill", "--store", store, "--json"])
        #expect(again.json?["playback"] as? Int == 0 && again.json?["probes"] as? Int == 0, "the jobs wait already: \(again.stdout)")

        let server = try ServerProcess(store: store, workers: 2)
        for id in ids {
            let document = try Self.settled(server, id)
            #expect(document["playback"] as? String == "transcode")
            #expect((document["renditions"] as? [[String: Any]])?.first?["status"] as? String == "ready", "\(document)")
        }
        let done = try DocPreviewProcess.run(["jobs", "backfill", "--store", store, "--json"])
        #expect(done.json?["playback"] as? Int == 0 && done.json?["probes"] as? Int == 0, "nothing left: \(done.stdout)")
    }

    /// 40 s of 720p MPEG-4 Part 2 + MP3: a transcode of several seconds.
    static func longAVI(in folder: TemporaryFolder) throws -> Data {
        let file = folder.url.appendingPathComponent("long.avi")
        try MediaTools.aviClip(file, size: "1280x720", seconds: 40)
        return try Data(contentsOf: file)
    }

    /// Lanes: with two worker slots, a photo uploaded while a video is being transcoded gets its
    /// thumbnail at once, not after the transcode.
    @Test func aThumbnailDoesNotWaitBehindATranscode() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2)
        let video = try #require(
            try server.upload(try Self.longAVI(in: folder), query: "owner=ana&title=Long&filename=long.avi").json?["document_id"] as? String)
        try server.document(video, reaching: ["done"])
        let photo = try #require(
            try server.upload(Data(contentsOf: Fixtures.sample("image.webp")), query: "owner=bo&title=Photo&filename=p.webp")
                .json?["document_id"] as? String)
        try server.document(photo, reaching: ["done"])
        let rendition = (try server.get("/v1/documents/\(video)").json?["renditions"] as? [[String: Any]])?.first
        #expect(rendition?["status"] as? String == "pending", "the transcode was still running when the photo was done: \(rendition ?? [:])")
        // The running transcode tells how far it has come.
        var seen: [Int] = []
        try? waitUntil("the transcode to end", timeout: .seconds(300), interval: .milliseconds(25)) {
            let entry = (try server.get("/v1/documents/\(video)").json?["renditions"] as? [[String: Any]])?.first
            if let percent = entry?["progress"] as? Int, percent != seen.last { seen.append(percent) }
            return entry?["status"] as? String != "pending"
        }
        #expect(!seen.isEmpty && seen == seen.sorted() && seen.allSatisfy { (0...100).contains($0) }, "progress seen: \(seen)")
        #expect((try Self.settled(server, video)["renditions"] as? [[String: Any]])?.first?["status"] as? String == "ready")
    }

    /// A server killed mid-transcode (its renderer children die with it) leaves no rendition behind;
    /// after a restart the playback job runs again and the rendition is whole.
    @Test func aTranscodeCutByAKillIsMadeAgainAfterTheRestart() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        var server: ServerProcess? = try ServerProcess(store: store, workers: 1)
        let id = try #require(
            try server!.upload(try Self.longAVI(in: folder), query: "owner=ana&title=Long&filename=long.avi").json?["document_id"] as? String)
        // Killed once the transcode is writing: a staged rendition exists.
        let staging = folder.url.appendingPathComponent("store/tmp")
        func stagedRenditions() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []).filter { $0.hasPrefix("playback-") }
                .compactMap { try? FileManager.default.contentsOfDirectory(atPath: staging.appendingPathComponent($0).path) }.flatMap { $0 }
                .filter { $0.hasPrefix("rendition.mp4") }
        }
        try? waitUntil("the transcode to write its rendition", interval: .milliseconds(25)) { !stagedRenditions().isEmpty }
        #expect(!stagedRenditions().isEmpty, "the transcode started")
        kill(server!.process.processIdentifier, SIGKILL)
        server!.process.waitUntilExit()
        server = nil
        let restarted = try ServerProcess(store: store, workers: 1)
        let rendition = try #require((try Self.settled(restarted, id)["renditions"] as? [[String: Any]])?.first)
        #expect(rendition["status"] as? String == "ready")
        let (whole, _) = try Self.fetch(URLRequest(url: URL(string: restarted.base + (rendition["url"] as? String ?? ""))!))
        let file = folder.url.appendingPathComponent("rendition.mp4")
        try whole.write(to: file)
        #expect(abs((try MediaTools.probe(file).durationSeconds ?? 0) - 40) < 0.1, "the rendition is whole")
        // What the killed transcode staged is swept by gc like any interrupted write.
        kill(restarted.process.processIdentifier, SIGTERM)
        restarted.process.waitUntilExit()
        #expect(try DocPreviewProcess.run(["gc", "--store", store, "--grace", "0"]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: staging.path)
        #expect(left.isEmpty, "left in the staging folder: \(left)")
        #expect(try DocPreviewProcess.run(["verify", "--store", store]).status == 0)
    }
}
