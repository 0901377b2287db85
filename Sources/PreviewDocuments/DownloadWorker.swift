import Foundation
import Logging
import PreviewCore
import PreviewFetch
import PreviewStore
import ServiceLifecycle

/// Downloads queued links with `concurrency` slots: each leases a download, fetches it in a child
/// of its own (``LinkFetcher``), stores what came as a document with its preview job
/// (``DocumentService/storeFetched(_:title:for:)``), and records the outcome: done with the
/// document, queued again after the queue's back-off for a transient failure, failed at once for a
/// permanent one. On shutdown it stops leasing and gives back what still runs after `drainSeconds`.
package struct DownloadWorker: Service {
    package let documents: DocumentService
    package let fetcher: LinkFetcher
    package var concurrency: Int
    package var drainSeconds: Double
    package var pollInterval: Duration = .milliseconds(500)
    let logger: Logger
    let name = QueueWorker.newLeaseOwner()
    /// Threads that wait for the fetch children, one per slot (the queue and the store are awaited).
    let offload: Offload
    /// While the database or the disk refuses the fetcher: its slots pause, the faults are told once.
    let backoff: Backoff
    let faults = FaultBurst(place: "fetcher")

    package init(documents: DocumentService, fetcher: LinkFetcher, concurrency: Int, drainSeconds: Double = 10, logger: Logger) {
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
    private var leaseSeconds: TimeInterval { settings.fetchSeconds + 300 }
    private var maxBytes: Int { settings.maxBytes ?? documents.pipeline.configuration.limits.maxFileBytes }
    /// `STORE/fetch/`: one workspace per attempt, removed after it.
    private var workspaces: URL { documents.store.blobs.stagingFolder.deletingLastPathComponent().appendingPathComponent("fetch") }

    package func run() async throws {
        guard let queue = documents.downloads else { return }
        await cleanUp(queue)
        let running = RunningWork<DownloadRecord>(drainSeconds: drainSeconds) { $0.id }
        await running.serve(slots: concurrency, work: { _ in await work(queue, running: running) }) { download in
            do {
                try await queue.release(download)
                logger.warning("released a running download at shutdown", metadata: ["preview.download": "\(download.id)"])
            } catch {
                logger.error(
                    "could not release a running download at shutdown",
                    metadata: ["preview.download": "\(download.id)", "preview.error": "\(error)"])
            }
        }
    }

    /// Downloads that a crashed process on this host held go back to the queue; workspaces of
    /// processes that are gone are removed.
    private func cleanUp(_ queue: any LinkDownloads) async {
        await reclaimDeadLeases(queue)
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: workspaces.path)) ?? [] {
            guard let pid = Int32(folder.prefix { $0 != "-" }), pid != getpid(), QueueWorker.isGone(pid) else { continue }
            try? FileManager.default.removeItem(at: workspaces.appendingPathComponent(folder))
        }
    }

    /// Downloads that a process of this host held when it died go back to the queue at once, not
    /// when their leases run out.
    private func reclaimDeadLeases(_ queue: any LinkDownloads) async {
        do {
            let reclaimed = try await queue.reclaimDownloadLeases(where: QueueWorker.isDeadLocalWorker)
            if reclaimed > 0 { logger.warning("reclaimed downloads of a process that died", metadata: ["preview.downloads": "\(reclaimed)"]) }
        } catch {
            logger.error("could not reclaim downloads", metadata: ["preview.error": "\(error)"])
        }
    }

    private func work(_ queue: any LinkDownloads, running: RunningWork<DownloadRecord>) async {
        var idlePolls = 0
        while !running.isStopping, !Task.isCancelled {
            let announced = documents.arrivals?.announcements ?? 0
            let (name, leaseSeconds) = (name, leaseSeconds)
            let download: DownloadRecord
            switch await running.lease(
                { try await queue.leaseDownload(worker: name, leaseSeconds: leaseSeconds) },
                item: { $0 }, backoff: backoff, faults: faults, logger: logger, failure: "could not lease a download")
            {
            case let .leased(leased): download = leased
            case .failed: continue
            case .cancelled: return
            case .idle:
                // A process of this host that died while this one ran leaves its downloads to be taken back.
                idlePolls += 1
                if idlePolls % 25 == 0 { await reclaimDeadLeases(queue) }
                // Links sent to this process wake an idle slot at once; other processes' are found by polling.
                if let arrivals = documents.arrivals {
                    _ = await arrivals.wait(since: announced, upTo: pollInterval)
                } else {
                    try? await Task.sleep(for: pollInterval)
                }
                continue
            }
            // A download the drain cut off stays among the running ones, to be released.
            guard await process(download, queue, running: running) else { return }
            running.remove(download)
        }
    }

    /// Fetches and stores `download` and records how it ended; false when the drain cut it off first
    /// (nothing recorded: it is released).
    private func process(_ download: DownloadRecord, _ queue: any LinkDownloads, running: RunningWork<DownloadRecord>) async -> Bool {
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
        do {
            let failure = try await faults.retrying(
                until: documents.clock.instant + .seconds(leaseSeconds), on: documents.clock, pausing: backoff,
                logger: logger, while: { !running.isStopping }
            ) {
                try await record(outcome, of: download, queue, logger: logger)
            }
            if let failure { logger.error("could not record a download's outcome", metadata: ["preview.error": "\(failure)"]) }
            return true
        } catch {
            return false
        }
    }

    /// Records how `download` ended: done as its document, or failed (to be retried, or for good).
    private func record(
        _ outcome: Result<Document, FetchFailure>, of download: DownloadRecord, _ queue: any LinkDownloads,
        logger: Logger
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
