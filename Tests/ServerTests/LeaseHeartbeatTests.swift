import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewStore
import PreviewTestSupport
import Testing

/// A lease is renewed only by its holder; one that is not renewed runs out and the job is taken
/// over. (That a running worker renews it: WorkerLeaseTests, in worker processes of their own.)
@Suite struct LeaseHeartbeatTests {
    @Test(.blocking, arguments: TestBackend.available) func onlyTheHolderRenewsALease(backend: TestBackend) throws {
        let harness = try Harness(backend)
        defer { harness.folder.remove() }
        _ = try harness.queue.enqueue(try Self.video(harness, seconds: 1))
        // Leases run on the database's clock (shared by every host), so a test moves them by their
        // lengths rather than by waiting: this one has already run out when it is renewed.
        let (job, _) = try #require(try harness.queue.lease(worker: "w", leaseSeconds: -1))
        #expect(try harness.queue.renewLease(job, leaseSeconds: 60))
        #expect(try harness.queue.lease(worker: "thief", leaseSeconds: 60) == nil, "the renewed lease holds past its first end")
        var stranger = job
        stranger.leaseOwner = "thief"
        #expect(try !harness.queue.renewLease(stranger, leaseSeconds: 60), "a worker that does not hold the lease cannot renew it")
        #expect(try harness.queue.renewLease(job, leaseSeconds: -1))
        let (taken, _) = try #require(try harness.queue.lease(worker: "thief", leaseSeconds: 60), "a lease that ran out is taken over")
        #expect(taken.id == job.id)
        #expect(try !harness.queue.renewLease(job, leaseSeconds: 60), "the lease is lost")
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
