import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewStore
import PreviewTestSupport
import ServiceLifecycle
import Testing

/// A running job keeps its lease while its worker lives, however long it runs; a lease that is not
/// renewed runs out and the job is taken over.
@Suite struct LeaseHeartbeatTests {
    @Test(arguments: TestBackend.available) func onlyTheHolderRenewsALease(backend: TestBackend) throws {
        let harness = try Harness(backend)
        defer { harness.folder.remove() }
        _ = try harness.queue.enqueue(try Self.video(harness, seconds: 1))
        let (job, _) = try #require(try harness.queue.lease(worker: "w", leaseSeconds: 0.5))
        #expect(try harness.queue.renewLease(job, leaseSeconds: 60))
        usleep(800_000)
        #expect(try harness.queue.lease(worker: "thief", leaseSeconds: 60) == nil, "the renewed lease holds past its first end")
        var stranger = job
        stranger.leaseOwner = "thief"
        #expect(try !harness.queue.renewLease(stranger, leaseSeconds: 60), "a worker that does not hold the lease cannot renew it")
        #expect(try harness.queue.renewLease(job, leaseSeconds: -1))
        let (taken, _) = try #require(try harness.queue.lease(worker: "thief", leaseSeconds: 60), "a lease that ran out is taken over")
        #expect(taken.id == job.id)
        #expect(try !harness.queue.renewLease(job, leaseSeconds: 60), "the lease is lost")
    }

    /// A worker runs a playback job (a minute of 720p to transcode) with a lease of 12 s: it renews
    /// the lease while the job runs (every 4 s; the lease leaves a loaded machine's scheduling
    /// delays room), no other worker can take the job meanwhile, and it ends done on its first attempt.
    @Test func aLongJobKeepsItsLeaseWhileItsWorkerRuns() async throws {
        let harness = try Harness()
        defer { harness.folder.remove() }
        _ = try harness.queue.enqueue(try Self.video(harness, seconds: 60))
        let (preview, document) = try #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        _ = try harness.server.documents.run(preview, of: document)
        let playback = try #require(try harness.queue.latestJob(documentID: document.id, kind: .playback))
        #expect(playback.status == .queued)

        var worker = QueueWorker(documents: harness.server.documents, concurrency: 1, logger: Logger(label: "test"))
        worker.leaseSeconds = 12
        let group = ServiceGroup(configuration: .init(services: [worker], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        while try harness.queue.job(id: playback.id!)?.status == .queued { try await Task.sleep(for: .milliseconds(20)) }
        var leaseEnds: [Date] = []
        var taken = false
        while let job = try harness.queue.job(id: playback.id!), job.status == .processing {
            if let end = job.leaseExpiresAt, end != leaseEnds.last { leaseEnds.append(end) }
            // A rival worker asks for it all along.
            if try harness.queue.lease(worker: "rival", leaseSeconds: 60, kinds: [.playback]) != nil { taken = true; break }
            try await Task.sleep(for: .milliseconds(200))
        }
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!taken, "the running job was taken over")
        #expect(leaseEnds.count >= 2 && leaseEnds == leaseEnds.sorted(), "the lease was renewed as the job ran: \(leaseEnds)")
        let ended = try #require(try harness.queue.job(id: playback.id!))
        #expect(ended.status == .done && ended.attempts == 1)
    }

    /// A queued video document of `seconds` of 720p MPEG-4 Part 2 and MP3.
    static func video(_ harness: Harness, seconds: Int) throws -> DocumentRecord {
        let file = harness.folder.url.appendingPathComponent("clip-\(seconds).avi")
        try MediaTools.aviClip(file, size: "1280x720", seconds: seconds)
        let stored = try harness.pipeline.store.blobs.put(fileAt: file)
        return DocumentRecord(id: UUID().uuidString, owner: "", type: "", title: "clip", filename: "clip.avi", sha256: stored.hash, kind: .avi,
                              mime: "video/x-msvideo", size: stored.size, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
    }
}
