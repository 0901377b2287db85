import Foundation
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDomain
import PreviewStore
import PreviewTestSupport
import Testing

/// The lease contract (``Leases``) that jobs and link downloads share, run once over both tables on
/// both backends: fairness between groups, back-off and failure, only the holder acting, dead
/// workers' rows reclaimed, and rows that kill their worker every time dead-lettered.
@Suite struct LeaseContractTests {
    static let cases = TestBackend.available.flatMap { backend in LeasedTable.allCases.map { (backend, $0) } }

    /// Of the rows ready, the group (an owner's jobs, a client's downloads) with the fewest running
    /// goes first, then the row waiting longest: one who queued many waits behind nobody's first.
    @Test(arguments: cases) func theGroupWithTheFewestRunningGoesFirst(backend: TestBackend, table: LeasedTable) async throws {
        try await table.withQueue(backend) { queue in
            var busy: [Int64] = []
            for _ in 0..<3 { busy.append(try await queue.add("busy")) }
            let other = try await queue.add("other")
            var order: [Int64] = []
            for _ in 0..<4 { order.append(try #require(try await queue.lease("w", 60)).key) }
            #expect(order == [busy[0], other, busy[1], busy[2]])
            #expect(try await queue.lease("w", 60) == nil, "a leased row is not handed out twice")
        }
    }

    /// A retryable failure waits the policy's delay (none after the first attempt, then 30 s); any
    /// other fails for good; a failed row queued again starts with fresh attempts.
    @Test(arguments: cases) func failuresBackOffOrFailForGood(backend: TestBackend, table: LeasedTable) async throws {
        try await table.withQueue(backend) { queue in
            let key = try await queue.add("ana")
            let first = try await #require(try queue.lease("w", 60))
            #expect(first.key == key && first.attempts == 1 && first.status == table.running)
            let retried = try await queue.fail(first, PreviewError(.timeout, "slow"), true)
            #expect(retried.status == table.waiting && retried.errorCode == .timeout && retried.availableAt.timeIntervalSinceNow < 1)
            let second = try await #require(try queue.lease("w", 60), "the first retry is due at once")
            #expect(second.attempts == 2)
            // The database's clock is this machine's: the row is due 30 s after its failure was recorded,
            // some moment during the call, however long the call took (kept to the millisecond).
            let callStarted = Date()
            let later = try await queue.fail(second, PreviewError(.timeout, "slow"), true)
            let callEnded = Date()
            #expect(
                later.availableAt >= callStarted.addingTimeInterval(30 - 0.01) && later.availableAt <= callEnded.addingTimeInterval(30 + 0.01),
                "then after 30 s: \(later.availableAt) for a failure between \(callStarted) and \(callEnded)")
            #expect(try await queue.lease("w", 60) == nil, "not before its time")
            #expect(try await !queue.requeue(later), "only a failed row is queued again")

            _ = try await queue.add("ana")
            let doomed = try await #require(try queue.lease("w", 60))
            let failed = try await queue.fail(doomed, PreviewError(.corrupt, "not a file"), false)
            #expect(failed.status == table.failed && failed.errorMessage == "not a file")
            #expect(try await queue.requeue(failed))
            let fresh = try await #require(try queue.row(doomed.key))
            #expect(fresh.status == table.waiting && fresh.attempts == 0 && fresh.errorCode == nil)
        }
    }

    /// Retries wait nothing after the first attempt, then 30 s, 2 min and 5 min from then on, up to ten attempts.
    @Test(.blocking) func theRetryPolicyBacksOffToFiveMinutes() {
        let policy = RetryPolicy()
        #expect([1, 2, 3, 4, 5, 9].map { policy.delay(afterAttempts: $0) } == [0, 30, 120, 300, 300, 300])
        #expect(policy.delay(afterAttempts: 10) == nil)
    }

    /// A worker whose lease ran out and was taken over cannot finish, fail, release or renew it:
    /// the row is the new holder's.
    @Test(arguments: cases) func onlyTheHolderActs(backend: TestBackend, table: LeasedTable) async throws {
        try await table.withQueue(backend) { queue in
            _ = try await queue.add("ana")
            // Leases run on the database's clock: a test moves them by their lengths, never by waiting.
            let slow = try await #require(try queue.lease("slow", -1))
            let fast = try await #require(try queue.lease("fast", 60), "a lease that ran out is taken over")
            #expect(fast.key == slow.key && fast.attempts == 2)
            #expect(try await !queue.finish(slow))
            #expect(try await queue.fail(slow, PreviewError(.internal, "late"), true).owner == "slow", "nothing recorded for the old holder")
            try await queue.release(slow)
            #expect(try await !queue.renew(slow, 60))
            var stranger = fast
            stranger.owner = "thief"
            #expect(try await !queue.renew(stranger, 60), "one that never held it cannot renew it")
            let current = try await #require(try queue.row(fast.key))
            #expect(current.status == table.running && current.owner == "fast" && current.attempts == 2)
            #expect(try await queue.renew(fast, -1))
            #expect(try await queue.renew(fast, 60), "the holder renews while nobody took it over")
            #expect(try await queue.lease("thief", 60) == nil, "the renewed lease holds past its first end")
            #expect(try await queue.finish(fast))
            #expect(try await queue.row(fast.key)?.status == table.done)
        }
    }

    /// A crashed worker's rows are ready at once (their attempt stays counted); a release gives the
    /// attempt back.
    @Test(arguments: cases) func deadWorkersRowsAreReclaimedAtOnce(backend: TestBackend, table: LeasedTable) async throws {
        try await table.withQueue(backend) { queue in
            _ = try await queue.add("ana")
            let leased = try await #require(try queue.lease("host/4242/dead", 3600))
            await #expect(try queue.reclaim { $0 == "host/1/alive" } == 0)
            await #expect(try queue.reclaim { $0 == "host/4242/dead" } == 1)
            let again = try await #require(try queue.lease("w", 60))
            #expect(again.key == leased.key && again.attempts == 2, "the crashed attempt stays counted")
            try await queue.release(again)
            let released = try await #require(try queue.row(leased.key))
            #expect(released.status == table.waiting && released.attempts == 1, "a release uncounts its attempt")
        }
    }

    /// A row whose worker died with it every time is failed for good after its attempts, in the same
    /// words on both backends, and never leased again; a preview job's document fails with it.
    @Test(arguments: cases) func rowsThatKillTheirWorkerEveryTimeAreDeadLettered(backend: TestBackend, table: LeasedTable) async throws {
        try await table.withQueue(backend) { queue in
            let key = try await queue.add("ana")
            let attempts = RetryPolicy().maxAttempts
            for attempt in 1...attempts {
                let leased = try await #require(try queue.lease("host/1/doomed", -1), "attempt \(attempt)")
                #expect(leased.attempts == attempt)
            }
            #expect(try await queue.lease("w", 60) == nil)
            let dead = try await #require(try queue.row(key))
            #expect(dead.status == table.failed && dead.errorCode == .internal)
            #expect(dead.errorMessage == RetryPolicy.gaveUp(table.work, after: attempts))
            if let failedDocument = queue.documentFailed { await #expect(try failedDocument(dead)) }
            #expect(try await queue.requeue(dead))
            #expect(try await queue.lease("w", 60)?.attempts == 1)
        }
    }
}

/// A table under the lease contract, driven through its queue's own calls.
enum LeasedTable: String, CaseIterable, CustomStringConvertible, Sendable {
    case jobs, downloads

    var description: String { rawValue }

    var waiting: String { self == .jobs ? JobRecord.Status.queued.rawValue : DownloadRecord.Status.queued.rawValue }
    var running: String { self == .jobs ? JobRecord.Status.processing.rawValue : DownloadRecord.Status.downloading.rawValue }
    var done: String { self == .jobs ? JobRecord.Status.done.rawValue : DownloadRecord.Status.done.rawValue }
    var failed: String { self == .jobs ? JobRecord.Status.failed.rawValue : DownloadRecord.Status.failed.rawValue }
    var work: String { self == .jobs ? "Processing" : "The download" }

    func withQueue(_ backend: TestBackend, _ body: (ContractQueue) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try await backend.open(root: folder.url)
        try await body(self == .jobs ? try ContractQueue.jobs(opened, folder: folder.url) : ContractQueue.downloads(opened.downloads))
    }
}

/// A leased row as the contract sees it, and the record it came from.
struct ContractRow: Equatable {
    var key: Int64
    var status: String
    var attempts: Int
    var owner: String?
    var availableAt: Date
    var errorCode: PreviewError.Code?
    var errorMessage: String?
    var record: Record

    enum Record: Equatable {
        case job(JobRecord)
        case download(DownloadRecord)
    }

    init(_ job: JobRecord) {
        (key, status, attempts, owner, availableAt) = (job.id ?? -1, job.status.rawValue, job.attempts, job.leaseOwner, job.availableAt)
        (errorCode, errorMessage, record) = (job.errorCode, job.errorMessage, .job(job))
    }

    init(_ download: DownloadRecord) {
        (key, status, attempts, owner, availableAt) = (
            download.seq ?? -1, download.status.rawValue, download.attempts, download.leaseOwner,
            download.availableAt
        )
        (errorCode, errorMessage, record) = (download.errorCode, download.errorMessage, .download(download))
    }

    /// The job, with the holder this row names.
    var job: JobRecord {
        guard case var .job(job) = record else { preconditionFailure("not a job") }
        job.leaseOwner = owner
        return job
    }

    var download: DownloadRecord {
        guard case var .download(download) = record else { preconditionFailure("not a download") }
        download.leaseOwner = owner
        return download
    }
}

/// A queue's calls, in the contract's words.
struct ContractQueue {
    /// Adds a waiting row of a group; returns its key.
    var add: (_ group: String) async throws -> Int64
    var lease: (_ worker: String, _ seconds: TimeInterval) async throws -> ContractRow?
    var renew: (ContractRow, TimeInterval) async throws -> Bool
    var finish: (ContractRow) async throws -> Bool
    var fail: (ContractRow, PreviewError, _ retryable: Bool) async throws -> ContractRow
    var release: (ContractRow) async throws -> Void
    var reclaim: (_ isDead: @escaping @Sendable (String) -> Bool) async throws -> Int
    var row: (Int64) async throws -> ContractRow?
    /// Queues a failed row again (a job retried by hand, a link sent again); whether it was failed.
    var requeue: (ContractRow) async throws -> Bool
    /// Whether a dead-lettered row's document failed with it (jobs only).
    var documentFailed: ((ContractRow) async throws -> Bool)?

    static func jobs(_ backend: StoreBackend, folder: URL) async throws -> ContractQueue {
        let (queue, index) = (backend.queue, backend.store.index)
        let file = folder.appendingPathComponent("a.txt")
        try Data("a".utf8).write(to: file)
        let blob = try await backend.store.blobs.put(fileAt: file)
        return ContractQueue(
            add: { owner in
                let document = Document(
                    id: UUID().uuidString, owner: owner, type: nil, title: UUID().uuidString, filename: "a.txt",
                    sha256: blob.hash, kind: .text, mime: "text/plain", size: blob.size, facts: MediaFacts(), version: 0,
                    previewStatus: .pending, createdAt: Date())
                return try await #require(try queue.enqueue(document).job.id)
            },
            lease: { worker, seconds in try await queue.lease(worker: worker, leaseSeconds: seconds).map { ContractRow($0.job) } },
            renew: { row, seconds in try await queue.renewLease(row.job, leaseSeconds: seconds) },
            finish: { row in try await queue.complete(row.job) },
            fail: { row, error, retryable in await ContractRow(try queue.fail(row.job, error: error, retryable: retryable)) },
            release: { row in try await queue.release(row.job) },
            reclaim: { isDead in try await queue.reclaimLeases(where: isDead) },
            row: { key in try await queue.job(id: key).map(ContractRow.init) },
            requeue: { row in try await queue.retry(id: row.key) },
            documentFailed: { row in try await index.document(id: row.job.documentID)?.previewStatus == .failed })
    }

    static func downloads(_ queue: any LinkDownloads) -> ContractQueue {
        let settings = DownloadSettings(domains: ["media.example.org"])
        func record(client: String, url: String) throws -> DownloadRecord {
            DownloadRecord(
                id: DownloadRecord.newID(), clientID: client, device: nil, owner: "ana", url: url,
                link: try DownloadLink(url, settings: settings), clientTimestamp: nil)
        }
        func find(_ key: Int64) async throws -> DownloadRecord? {
            for client in ["busy", "other", "ana"] {
                if let found = try await queue.downloads(clientID: client, device: nil, before: nil, limit: 100).first(where: { $0.seq == key }) {
                    return found
                }
            }
            return nil
        }
        return ContractQueue(
            add: { client in
                let added = try await queue.submit(
                    try record(client: client, url: "https://media.example.org/\(UUID().uuidString).mp4"), maxPending: 100)
                return try #require(added.download.seq)
            },
            lease: { worker, seconds in try await queue.leaseDownload(worker: worker, leaseSeconds: seconds).map(ContractRow.init) },
            renew: { row, seconds in try await queue.renewLease(row.download, leaseSeconds: seconds) },
            finish: { row in try await queue.finish(row.download, documentID: "doc") },
            fail: { row, error, retryable in await ContractRow(try queue.fail(row.download, error: error, retryable: retryable)) },
            release: { row in try await queue.release(row.download) },
            reclaim: { isDead in try await queue.reclaimDownloadLeases(where: isDead) },
            row: { key in try await find(key).map(ContractRow.init) },
            requeue: { row in
                // The person sends the same link again.
                let before = try await find(row.key)
                let sent = try await queue.submit(try record(client: row.download.clientID, url: row.download.url), maxPending: 100)
                return before?.status == .failed && sent.download.status == .queued && sent.download.attempts == 0
            },
            documentFailed: nil)
    }
}
