import Foundation
import PreviewTestSupport
import Testing

/// A running job keeps its lease while its worker lives, however long it runs: two `worker`
/// processes on one store with leases of 4 s; the first takes a playback job of 20 s of 720p (some
/// seconds here, ten times as long on a machine other work keeps busy, where a background child
/// gets a tenth of a core) and renews its lease every third of one; the second, started while it runs, never takes the job
/// over, which ends done on its first attempt. (Worker processes of their own: the renewals run on
/// a Swift pool that no test blocks.)
@Suite(.blocking) struct WorkerLeaseTests {
    @Test func aLongJobKeepsItsLeaseWhileItsWorkerRuns() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let clip = folder.url.appendingPathComponent("clip.avi")
        try MediaTools.aviClip(clip, size: "1280x720", seconds: 20)
        #expect(try DocPreviewProcess.run(["ingest", clip.path, "--store", store]).status == 0)
        #expect(try DocPreviewProcess.run(["jobs", "backfill", "--store", store, "--json"]).json?["playback"] as? Int == 1)
        func playbackJob() throws -> [String: Any]? {
            let listed = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"]).stdout
            return (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])?.first { $0["kind"] as? String == "playback" }
        }
        func worker() throws -> Process {
            let process = Process()
            process.executableURL = DocPreviewProcess.binary
            process.arguments = ["worker", "--store", store, "--concurrency", "1", "--lease-seconds", "4"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        let first = try worker()
        defer { kill(first.processIdentifier, SIGKILL) }
        try waitUntil("the playback job to be processing", interval: .milliseconds(50)) { try playbackJob()?["status"] as? String == "processing" }
        let second = try worker()
        defer { kill(second.processIdentifier, SIGKILL) }
        var leaseEnds: Set<String> = []
        var job: [String: Any] = [:]
        try? waitUntil("the playback job to end", timeout: .seconds(300), interval: .milliseconds(250)) {
            job = try playbackJob() ?? [:]
            if let end = job["lease_expires_at"] as? String { leaseEnds.insert(end) }
            return job["status"] as? String != "processing"
        }
        #expect(job["status"] as? String == "done" && job["attempts"] as? Int == 1, "\(job)")
        #expect(leaseEnds.count >= 2, "the lease was renewed as the job ran: \(leaseEnds.sorted())")
    }
}
