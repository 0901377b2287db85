import Foundation
import HummingbirdTesting
import PreviewBackendTestSupport
import PreviewCore
import PreviewStore
import Synchronization
import Testing

/// An upload's job goes to an idle worker of the same process leased in the upload's own
/// transaction and handed over in memory: no lease query of its own, no other worker can take it,
/// and the upload is answered as queued (DESIGN §8) all the same.
@Suite struct JobHandoffTests {
    static let lease = JobLease(worker: "slot", seconds: 60)

    @Test(arguments: TestBackend.available) func anIdleWorkerIsHandedTheUploadsJob(backend: TestBackend) async throws {
        let arrivals = JobArrivals()
        let harness = try await Harness(backend, arrivals: arrivals)
        defer { harness.folder.remove() }
        let reserved = Atomic(0)
        let taker = JobArrivals.Taker(lease: Self.lease) {
            reserved.add(1, ordering: .relaxed)
            return true
        }
        async let waited = arrivals.wait(since: arrivals.announcements, upTo: .seconds(3600), taking: taker)
        try await Self.untilWaiting(arrivals)
        let body = try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.pdf&owner=ana", method: .post, body: try sample("document-5-pages.pdf")) {
                #expect($0.status == .accepted)
                let body = try json($0)
                return (status: body["status"] as? String, job: body["job_id"] as? Int64, document: body["document_id"] as? String)
            }
        }
        #expect(body.status == "queued", "answered as accepted, whoever runs it")
        guard case let .handed(handed?) = await waited else { Issue.record("the waiting worker was not handed the job"); return }
        #expect(reserved.load(ordering: .relaxed) == 1)
        let (job, document) = handed
        #expect(job.id == body.job && document.id == body.document)
        #expect(job.status == .processing && job.leaseOwner == Self.lease.worker && job.attempts == 1)
        let jobID = try #require(job.id)
        let stored = try await #require(try harness.queue.job(id: jobID))
        #expect(stored.status == .processing && stored.leaseOwner == Self.lease.worker && stored.attempts == 1, "leased in the upload's transaction")
        let expires = try #require(stored.leaseExpiresAt)
        #expect((59.9...60.1).contains(expires.timeIntervalSince(stored.availableAt)), "leased for the worker's lease length from its commit")
        #expect(try await harness.queue.lease(worker: "other", leaseSeconds: 60) == nil, "no other worker can take it")
        guard case .done = try await harness.server.documents.run(job, of: document) else {
            Issue.record("the handed lease is not the job's"); return
        }
        #expect(try await harness.pipeline.store.index.document(id: document.id)?.previewStatus == .ready)
    }

    /// A worker that refuses the reservation (it is stopping) is not handed a job: the job waits in
    /// the queue and is announced, for any worker to lease.
    @Test(arguments: TestBackend.available) func aRefusingWorkerLeavesTheJobQueued(backend: TestBackend) async throws {
        let arrivals = JobArrivals()
        let harness = try await Harness(backend, arrivals: arrivals)
        defer { harness.folder.remove() }
        async let waited = arrivals.wait(since: arrivals.announcements, upTo: .seconds(3600), taking: .init(lease: Self.lease) { false })
        try await Self.untilWaiting(arrivals)
        let id = try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.pdf", method: .post, body: try sample("document-5-pages.pdf")) {
                try #require(try json($0)["job_id"] as? Int64)
            }
        }
        #expect(await waited == .announced)
        #expect(try await harness.queue.job(id: id)?.status == .queued)
        #expect(try await harness.queue.lease(worker: "other", leaseSeconds: 60)?.job.id == id)
    }

    /// The same bytes again make no job: the reserved worker is let go without one.
    @Test(arguments: TestBackend.available) func aDuplicateDeclinesTheReservedWorker(backend: TestBackend) async throws {
        let arrivals = JobArrivals()
        let harness = try await Harness(backend, arrivals: arrivals)
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.pdf", method: .post, body: try sample("document-5-pages.pdf")) { _ in }
        }
        try await harness.drainQueue()
        async let waited = arrivals.wait(since: arrivals.announcements, upTo: .seconds(3600), taking: .init(lease: Self.lease) { true })
        try await Self.untilWaiting(arrivals)
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.pdf", method: .post, body: try sample("document-5-pages.pdf")) {
                let status = try json($0)["status"] as? String
                #expect(status == "done")
            }
        }
        #expect(await waited == .handed(nil))
    }

    /// Waits until a wait is registered (a reservation finds it).
    static func untilWaiting(_ arrivals: JobArrivals) async throws {
        for _ in 0..<500 where arrivals.waiting == 0 { try await Task.sleep(for: .milliseconds(2)) }  // polls: a wait registers no event
        #expect(arrivals.waiting == 1)
    }
}
