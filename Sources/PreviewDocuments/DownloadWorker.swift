import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewFetch
import PreviewStore
import ServiceLifecycle

/// Downloads queued links with `concurrency` slots: each leases a download, fetches it in a child
/// of its own (``LinkFetcher``), stores what came as a document with its preview job
/// (``DocumentService/storeFetched(_:title:for:)``), and records the outcome: done with the
/// document, queued again after the queue's back-off for a transient failure, failed at once for a
/// permanent one. On shutdown it stops leasing and gives back what still runs after `drainSeconds`.
package struct DownloadWorker: Service, LeasingWorker {
    typealias Item = DownloadRecord
    static let itemName = "download"
    package let documents: DocumentService
    package let fetcher: LinkFetcher
    /// The store's queue of links.
    let queue: any LinkDownloads
    package var concurrency: Int
    package var drainSeconds: Double
    package var pollInterval: Duration = .milliseconds(500)
    let logger: Logger
    let name = LeaseOwners.newName()
    /// Threads that wait for the fetch children, one per slot (the queue and the store are awaited).
    let offload: Offload
    /// While the database or the disk refuses the fetcher: its slots pause, the faults are told once.
    let backoff: Backoff
    let faults = FaultBurst(place: "fetcher")

    /// Nil when the store keeps no queue of links.
    package init?(documents: DocumentService, fetcher: LinkFetcher, concurrency: Int, drainSeconds: Double = 10, logger: Logger) {
        guard let queue = documents.downloads else { return nil }
        self.queue = queue
        self.documents = documents
        backoff = Backoff(clock: documents.clock)
        self.fetcher = fetcher
        self.concurrency = max(1, concurrency)
        self.drainSeconds = drainSeconds
        self.logger = logger
        offload = Offload(reads: 1, writes: 1, renders: self.concurrency)
    }

    private var settings: DownloadSettings { documents.pipeline.configuration.downloads }
    /// The fetch, then storing up to the size limit: a lease outlives both, so only a dead
    /// fetcher's download is taken over.
    var leaseSeconds: TimeInterval { settings.fetchSeconds + 300 }
    private var maxBytes: Int { settings.maxBytes ?? documents.pipeline.configuration.limits.maxFileBytes }
    /// `STORE/fetch/`: one workspace per attempt, removed after it.
    private var workspaces: URL { documents.store.blobs.stagingFolder.deletingLastPathComponent().appendingPathComponent("fetch") }

    package func run() async throws {
        removeDeadWorkspaces()
        await serveSlots()
    }

    var slots: Int { concurrency }
    func key(of item: Item) -> String { item.id }
    func lease(slot: Int) async throws -> Item? { try await queue.leaseDownload(worker: name, leaseSeconds: leaseSeconds) }
    func release(_ item: Item) async throws { try await queue.release(item) }
    func reclaimDeadLeases() async throws -> Int { try await queue.reclaimDownloadLeases(where: LeaseOwners.isDeadLocalWorker) }

    /// Removes the workspaces of processes of this host that are gone.
    private func removeDeadWorkspaces() {
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: workspaces.path)) ?? [] {
            guard let pid = Int32(folder.prefix { $0 != "-" }), pid != getpid(), LeaseOwners.isGone(pid) else { continue }
            try? FileManager.default.removeItem(at: workspaces.appendingPathComponent(folder))
        }
    }

    /// Fetches and stores `download` and records how it ended; false when the drain cut it off first
    /// (nothing recorded: it is released).
    func process(_ download: DownloadRecord, running: RunningWork<DownloadRecord>) async -> Bool {
        var logger = logger
        logger[metadataKey: "preview.download"] = "\(download.id)"
        let workspace = workspaces.appendingPathComponent("\(getpid())-\(download.seq ?? 0)-\(download.attempts)")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let (fetcher, documents, settings, maxBytes) = (fetcher, documents, settings, maxBytes)
        let outcome: Result<Document, FetchFailure>
        do {
            // The fetch child is waited for on a thread of the fetches' own lane.
            let reply = try await offload.run(.renders) {
                fetcher.fetch(
                    try DownloadLink(download.normalizedURL, settings: settings), into: workspace, maxBytes: maxBytes,
                    seconds: settings.fetchSeconds)
            }
            if let file = reply.file, let title = reply.title {
                outcome = .success(try await documents.storeFetched(URL(fileURLWithPath: file), title: title, for: download))
            } else {
                outcome = .failure(reply.failure ?? .transient(.internal, "The download failed."))
            }
        } catch is CancellationError {
            return false
        } catch {
            // The link no longer passes the rules (they changed), the file was refused, or the store failed.
            let failure = error as? PreviewError ?? StoreFault(error)?.previewError ?? PreviewError(.internal, "\(error)")
            outcome = .failure(FetchFailure(error: failure, retryable: StoreFault(error) != nil || failure.code == .internal))
        }
        // While the database refuses, the outcome is recorded again until it is or the lease runs out.
        return await recordOutcome(running: running, logger: logger) {
            try await record(outcome, of: download, logger: logger)
        }
    }

    /// Records how `download` ended: done as its document, or failed (to be retried, or for good).
    private func record(
        _ outcome: Result<Document, FetchFailure>, of download: DownloadRecord, logger: Logger
    ) async throws {
        switch outcome {
        case let .success(document):
            let recorded = try await queue.finish(download, documentID: document.id)
            faults.clear(logger: logger, proof: .write, backoff: backoff)
            ServiceMetrics.downloads(outcome: recorded ? "done" : "lease_lost")
            logger.info("download done", metadata: ["preview.document": "\(document.id)"])
        case let .failure(report):
            let recorded = try await queue.fail(download, error: report.error, retryable: report.retryable)
            faults.clear(logger: logger, proof: .database, backoff: backoff)
            let retrying = recorded.status == .queued
            ServiceMetrics.downloads(outcome: retrying ? "retry" : "failed")
            logger.info(
                "download failed",
                metadata: [
                    "preview.code": "\(report.error.code)", "preview.reason": "\(report.error.message)",
                    "preview.status": "\(recorded.status.rawValue)"
                ])
        }
    }
}
