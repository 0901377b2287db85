import Foundation
import Logging
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPostgres
import PreviewStore
import ScaleRun
import Synchronization

/// The job queue's own throughput, without rendering: empty jobs enqueued one after another, then
/// leased and completed by 1, 2, 4… concurrent workers (tasks), PostgreSQL's each with a connection
/// of its own. Prints one JSON object per measurement (`threads` is the number of workers).
///
///     queue-load sqlite|postgres://… [jobs per round] [worker counts, e.g. 1,2,4,8]
@main
enum QueueLoad {
    static func main() async throws {
        let (database, rest) = ScaleRun.arguments(usage: "queue-load sqlite|postgres://… [jobs] [threads,…]")
        let jobs = rest.first.flatMap { Int($0) } ?? 2000
        let threadCounts = (rest.count > 1 ? rest[1] : "1,2,4,8").split(separator: ",").compactMap { Int($0) }
        let root = ScaleRun.folder("queue-load")
        defer { try? FileManager.default.removeItem(at: root) }
        let backend = database == nil ? "sqlite" : "postgres"
        let queue = try await openQueue(root: root, database: database, connections: threadCounts.max() ?? 1)

        for threads in threadCounts {
            let round = UUID().uuidString
            let enqueueStart = ContinuousClock.now
            for number in 0..<jobs { _ = try await queue.enqueue(emptyDocument("\(round)/\(number)")) }
            let enqueueSeconds = ScaleRun.seconds(since: enqueueStart)

            let start = ContinuousClock.now
            let taken = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<threads {
                    group.addTask {
                        var taken = 0
                        while let (job, _) = try await queue.lease(worker: "load/\(worker)", leaseSeconds: 60) {
                            try await queue.complete(job)
                            taken += 1
                        }
                        return taken
                    }
                }
                var total = 0
                for try await taken in group { total += taken }
                return total
            }
            let elapsed = ScaleRun.seconds(since: start)
            guard taken == jobs else { throw QueueLoadError("took \(taken) of \(jobs)") }
            let report: [String: Any] = [
                "backend": backend, "threads": threads, "jobs": jobs,
                "enqueue_per_s": Double(jobs) / enqueueSeconds,
                "lease_complete_per_s": Double(jobs) / elapsed,
                "ms_per_job_per_thread": elapsed * 1000 * Double(threads) / Double(jobs)
            ]
            ScaleRun.report(report)
        }
    }

    /// The queue on `database`, or on SQLite in `root`; PostgreSQL gets one connection per worker.
    static func openQueue(root: URL, database: String?, connections: Int) async throws -> any JobQueue {
        guard let database else {
            let offload = Offload(reads: 1, writes: 1, renders: 1)
            return try await StoreBackend(root: root, database: nil, offload: offload, logger: Logger(label: "queue-load")).queue
        }
        let pool = try await PostgresConnections(url: database, size: connections, logger: Logger(label: "queue-load"))
        return PostgresJobQueue(index: try await PostgresIndex(connections: pool))
    }

    static func emptyDocument(_ title: String) -> Document {
        Document(
            id: UUID().uuidString, owner: "queue-load", type: "", title: title, filename: "empty.txt",
            sha256: BlobHash.of(Array(title.utf8)), kind: .text, mime: "text/plain", size: 0,
            facts: MediaFacts(), version: 0, previewStatus: PreviewStatus.pending, createdAt: Date())
    }
}

struct QueueLoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
