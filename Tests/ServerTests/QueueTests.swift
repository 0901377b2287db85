import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewDomain
import PreviewPipeline
import PreviewPostgres
@testable import PreviewServer
import PreviewWeb
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

@Suite struct QueueTests {
    private func queuedDocument(_ harness: Harness, title: String = "t") async throws -> JobRecord {
        let hash = try await harness.pipeline.store.blobs.put(fileAt: Fixtures.sample("image.webp")).hash
        let record = Document(
            id: UUID().uuidString, owner: "", type: nil, title: title, filename: "t.webp", sha256: hash, kind: .webp,
            mime: "image/webp", size: 1, facts: MediaFacts(), version: 0, previewStatus: PreviewStatus.pending, createdAt: Date())
        return try await harness.queue.enqueue(record).job
    }

    /// A job's run ends in one transaction: its thumbnail's row, the document's facts and status and
    /// the job's completion; the document's row carries its job's state. A run whose lease was lost
    /// leaves only its (correct) thumbnail row behind.
    @Test(arguments: TestBackend.available) func aJobsOutcomeIsRecordedWithItsCompletion(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let queued = try await queuedDocument(harness)
        #expect(try await harness.pipeline.store.index.document(id: queued.documentID)?.status == .queued)
        let (slow, document) = try await #require(try harness.queue.lease(worker: "slow", leaseSeconds: -1))
        #expect(try await harness.pipeline.store.index.document(id: document.id)?.status == .processing, "the row follows its job")
        let (fast, _) = try await #require(try harness.queue.lease(worker: "fast", leaseSeconds: 60))
        let outcome = await documents.outcome(of: fast, document)
        let thumbnail = try #require(outcome.derivatives.first?.record, "made, not yet recorded")
        #expect(try await harness.pipeline.store.index.derivative(key: thumbnail.key) == nil)
        guard case .leaseLost = try await documents.finish(slow, with: outcome) else { Issue.record("the lost lease must tell"); return }
        #expect(try await harness.pipeline.store.index.derivative(key: thumbnail.key) != nil, "the thumbnail is right whoever made it")
        let untouched = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(untouched.previewStatus == .pending && untouched.width == nil && untouched.status == .processing)
        guard case .done = try await documents.finish(fast, with: documents.outcome(of: fast, document)) else { Issue.record("not done"); return }
        let finished = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(finished.previewStatus == .ready && finished.width != nil && finished.status == .done)
    }

    /// Two slots of one worker process share its name: the slot whose lease ran out and was taken
    /// over by its sibling must not record, fail or release the sibling's attempt.
    @Test(arguments: TestBackend.available) func twoSlotsOfOneWorkerRaceOnOneExpiredJob(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        _ = try await queuedDocument(harness)
        let (first, _) = try await #require(try harness.queue.lease(worker: "host/1/w", leaseSeconds: -1))
        let (second, _) = try await #require(try harness.queue.lease(worker: "host/1/w", leaseSeconds: 60), "the run-out lease is taken over")
        #expect(first.leaseOwner == second.leaseOwner && second.attempts == first.attempts + 1)
        #expect(try await harness.queue.complete(first) == false, "the first slot's late outcome is not recorded")
        #expect(try await harness.queue.fail(first, error: PreviewError(.internal, "late"), retryable: true).status == .processing)
        try await harness.queue.release(first)
        let current = try await #require(try harness.queue.job(id: second.id!))
        #expect(current.status == .processing && current.attempts == second.attempts, "the second slot still holds its attempt")
        #expect(try await harness.queue.complete(second))
        #expect(try await harness.queue.job(id: second.id!)?.status == .done)
    }

    @Test(arguments: TestBackend.available) func concurrentWorkersNeverTakeTheSameJob(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let jobs = 60
        for number in 0..<jobs { _ = try await queuedDocument(harness, title: "t\(number)") }
        // NSLock, not Mutex: ThreadSanitizer sees pthread mutexes, not the futex under Synchronization.Mutex,
        // and reports the appends below as races when six threads contend for it.
        final class Tally: @unchecked Sendable {  // `ids` and `failures` only touched under `lock`
            let lock = NSLock()
            var ids: [Int64] = []
            var failures: [String] = []
        }
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    do {
                        while let (job, _) = try await harness.queue.lease(worker: "w\(worker)", leaseSeconds: 60) {
                            tally.lock.withLock { tally.ids.append(job.id!) }
                            try await harness.queue.complete(job)
                        }
                    } catch {
                        tally.lock.withLock { tally.failures.append("\(error)") }
                    }
                }
            }
        }
        #expect(tally.failures.isEmpty)
        let ids = tally.ids
        #expect(ids.count == jobs && Set(ids).count == jobs, "each job leased exactly once")
        #expect(try await harness.queue.counts()[.done] == jobs)
    }

    /// A preview job's completion queues its follow-up (a video's playback job) in the same
    /// transaction; preview jobs are leased before playback jobs, a slot that asks for previews only
    /// never gets a playback job, and the document's own state follows its preview job alone.
    @Test(arguments: TestBackend.available) func playbackJobsFollowAndWaitBehindPreviews(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        _ = try await queuedDocument(harness, title: "first")
        let (first, document) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(try await harness.queue.complete(first, recording: JobOutcome(previewStatus: .ready, followUp: .playback)))
        let playback = try await #require(try harness.queue.latestJob(documentID: document.id, kind: .playback))
        #expect(playback.status == .queued && playback.kind == .playback)
        #expect(try await harness.queue.latestJob(documentID: document.id)?.id == first.id, "the latest preview job is still the document's")
        _ = try await queuedDocument(harness, title: "second")
        let (early, _) = try await #require(try harness.queue.lease(worker: "early", leaseSeconds: 60, kinds: [.playback]))
        #expect(early.id == playback.id)
        try await harness.queue.release(early)

        let (preview, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60), "the newer preview job comes first")
        #expect(preview.kind == .preview)
        #expect(try await harness.queue.lease(worker: "lane", leaseSeconds: 60, kinds: [.preview]) == nil, "a previews-only slot waits")
        let (taken, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(taken.id == playback.id)
        #expect(
            try await harness.pipeline.store.index.document(id: document.id)?.status == .done, "a playback job does not move the document's state")
        try await harness.queue.reportProgress(taken, fraction: 0.5)
        try await harness.queue.reportProgress(early, fraction: 0.9)
        #expect(try await harness.queue.job(id: taken.id!)?.progress == 0.5, "only the lease's holder reports progress")
        _ = try await harness.queue.fail(
            taken, error: PreviewError(.tooLong, "too long"), retryable: false,
            recording: JobOutcome(previewStatus: nil, error: PreviewError(.tooLong, "too long")))
        let after = try await #require(try harness.pipeline.store.index.document(id: document.id))
        #expect(after.status == .done && after.previewStatus == .ready && after.errorCode == nil, "nor its preview status")
    }

    /// A backfill's queueing: a job of a kind is queued unless the document's latest one of that
    /// kind still waits or runs; once it has ended, another may be queued.
    @Test(arguments: TestBackend.available) func queueingAgainSkipsAJobThatWaits(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let document = try await queuedDocument(harness)
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview), "its preview job waits")
        #expect(try await harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .playback))
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .playback), "queued once")
        let (preview, _) = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(try await !harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview), "its preview job runs")
        #expect(try await harness.queue.complete(preview, recording: JobOutcome(previewStatus: .ready)))
        #expect(try await harness.queue.queueUnlessWaiting(documentID: document.documentID, kind: .preview))
        #expect(try await harness.queue.latestJob(documentID: document.documentID)?.status == .queued)
        #expect(
            try await harness.pipeline.store.index.document(id: document.documentID)?.jobStatus == .queued, "the document shows its new preview job")
    }
}
