import Logging
import Metrics
import PreviewCore
import PreviewQueue
import PreviewStore

/// The store's figures for `/metrics` (jobs by status, documents, bytes), read from the database off
/// the request: a scrape starts a refresh when the last is over `maxAge` old and waits for it at
/// most `patience`, then answers with what the process holds. So monitoring never waits on the
/// database, and during an outage `/metrics` still answers, with the last figures,
/// `docpreview_store_up 0` and the faults counted.
final class StoreFigures: Sendable {
    private let maxAge: Duration = .seconds(5)
    private let patience: Duration = .seconds(1)
    private let state = Locked((refresh: Task<Void, Never>?.none, at: ContinuousClock.Instant?.none))

    /// Refreshes the gauges when they are stale, waiting at most `patience` for the database.
    func refresh(queue: any JobQueue, index: any DocumentIndex, blocking: BlockingExecutor, faults: FaultBurst, logger: Logger) async {
        let (maxAge, state) = (maxAge, state)
        let running = state.withLock { current -> Task<Void, Never>? in
            if let refresh = current.refresh { return refresh }
            if let at = current.at, at.duration(to: .now) < maxAge { return nil }
            let refresh = Task {
                do {
                    try await blocking.run { try Self.record(queue: queue, index: index) }
                    Gauge(label: "docpreview_store_up").record(1)
                    faults.clear(logger: logger)
                } catch {
                    Gauge(label: "docpreview_store_up").record(0)
                    if let fault = StoreFault(error) {
                        faults.record(fault, cause: error, logger: logger)
                    } else {
                        logger.error("could not read the store's figures", metadata: ["preview.error": "\(error)"])
                    }
                }
                state.withLock { $0 = (nil, .now) }
            }
            current.refresh = refresh
            return refresh
        }
        if let running { await Self.wait(for: running, atMost: patience) }
    }

    private static func record(queue: any JobQueue, index: any DocumentIndex) throws {
        for (status, count) in try queue.counts() {
            Gauge(label: "docpreview_jobs", dimensions: [("status", status.rawValue)]).record(count)
        }
        let statistics = try index.statistics()
        Gauge(label: "docpreview_store_bytes", dimensions: [("kind", "logical")]).record(statistics.logicalBytes)
        Gauge(label: "docpreview_store_bytes", dimensions: [("kind", "stored")]).record(statistics.storedBytes)
        Gauge(label: "docpreview_store_bytes", dimensions: [("kind", "previews")]).record(statistics.previewBytes)
        Gauge(label: "docpreview_documents").record(statistics.documents)
    }

    /// Returns when `task` ends or `limit` has passed, whichever is first; the task runs on.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Locked(false)
            let resume: @Sendable () -> Void = {
                if resumed.withLock({ resumed in defer { resumed = true }; return !resumed }) { continuation.resume() }
            }
            Task {
                await task.value
                resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                resume()
            }
        }
    }
}
