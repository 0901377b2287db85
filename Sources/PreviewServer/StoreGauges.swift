import Logging
import PreviewCore
import PreviewDocuments
import PreviewStore

/// The store's figures for `/metrics` (jobs by status, documents, bytes), read from the database off
/// the request: a scrape starts a refresh (or joins the one under way) and waits for it at most
/// `patience`, then answers with what the process holds. So monitoring never waits on the database
/// for long, and during an outage `/metrics` still answers, with the last figures,
/// `docpreview_store_up 0` and the faults counted.
final class StoreGauges: Sendable {
    private let patience: Duration = .seconds(1)
    /// The refresh under way; one at a time, however many scrapes arrive meanwhile.
    private let running = Locked(Task<Void, Never>?.none)

    /// Refreshes the gauges, waiting at most `patience` for the database.
    func refresh(documents: DocumentService, faults: FaultBurst, logger: Logger) async {
        let running = running
        let refresh = running.withLock { current -> Task<Void, Never> in
            if let refresh = current { return refresh }
            let refresh = Task {
                do {
                    try await Self.record(documents)
                    ServiceMetrics.storeUp(1)
                    faults.clear(logger: logger, proof: .database)
                } catch {
                    ServiceMetrics.storeUp(0)
                    if let fault = StoreFault(error) {
                        faults.record(fault, cause: error, logger: logger)
                    } else {
                        logger.error("could not read the store's figures", metadata: ["preview.error": "\(error)"])
                    }
                }
                running.withLock { $0 = nil }
            }
            current = refresh
            return refresh
        }
        await Self.wait(for: refresh, atMost: patience)
    }

    private static func record(_ documents: DocumentService) async throws {
        for (status, count) in try await documents.jobCounts() {
            ServiceMetrics.jobsByStatus(count, status: status.rawValue)
        }
        let statistics = try await documents.statistics(owner: nil)
        ServiceMetrics.storeBytes(statistics.logicalBytes, kind: "logical")
        ServiceMetrics.storeBytes(statistics.storedBytes, kind: "stored")
        ServiceMetrics.storeBytes(statistics.previewBytes, kind: "previews")
        ServiceMetrics.documentsStored(statistics.documents)
        ServiceMetrics.uploadsOpen(statistics.openUploads ?? 0)
        ServiceMetrics.uploadsStagedBytes(statistics.stagedUploadBytes ?? 0)
    }

    /// Returns when `task` ends or `limit` has passed, whichever is first; the task runs on.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Locked(false)
            let resume: @Sendable () -> Void = {
                if resumed.withLock({ resumed in
                    defer { resumed = true }; return !resumed
                }) {
                    continuation.resume()
                }
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
