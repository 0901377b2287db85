import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewPipeline
import PreviewStore
import ServiceLifecycle

/// Processes queued jobs with `concurrency` slots, each taking one job at a time, and
/// ``textLanes`` more that take text jobs only. Queue calls and each job's C work run on the lanes
/// of the worker's ``Offload`` (a database busy for seconds, or a render running to its deadline,
/// holds none of the cooperative pool's threads).
///
/// Lanes: the first slot takes preview jobs only (when there are others), so a thumbnail never
/// waits behind a transcode; the other slots take preview jobs first, then playback jobs; text
/// jobs (a scan's OCR may take a job's whole time a page) run on their own lanes, so they never
/// hold the slots a video needs to become playable. Text and playback jobs run at background
/// priority (``WorkPriority``): on threads and renderer children that yield to every render a
/// person waits for. Within a kind, jobs are leased fairly across owners (the owner with the
/// fewest running first).
///
/// On graceful shutdown it stops taking jobs, lets running ones finish for up to `drainSeconds`,
/// then gives back (releases) whatever still runs, so another worker redoes it; nothing is lost.
package struct QueueWorker: Service, LeasingWorker {
    /// A leased job and its document.
    typealias Item = JobArrivals.Handed
    static let itemName = "job"
    package let documents: DocumentService
    package var concurrency: Int
    /// Slots beside ``concurrency`` that take text jobs only.
    package var textLanes: Int
    /// The text lanes a worker has unless told otherwise: renderer pools and render lanes count them.
    package static let defaultTextLanes = 1
    /// How long a job stays this worker's without word from it. A running job's lease is renewed
    /// every third of that (a transcode may run for hours), so a dead worker's job is taken over
    /// within one lease, whatever its length.
    package var leaseSeconds: TimeInterval
    package var drainSeconds: Double
    package var pollInterval: Duration = .milliseconds(200)
    let name: String
    let logger: Logger
    /// While the database or the disk refuses the worker: its slots pause, the faults are told once.
    let backoff: Backoff
    let faults = FaultBurst(place: "worker")

    /// - Parameter documents: its ``DocumentService/arrivals`` (jobs enqueued in this process) are
    ///   taken at once by an idle slot; other processes' jobs are found by polling.
    package init(documents: DocumentService, concurrency: Int, textLanes: Int = defaultTextLanes, drainSeconds: Double = 10, logger: Logger) {
        self.documents = documents
        backoff = Backoff(clock: documents.clock)
        self.concurrency = max(1, concurrency)
        self.textLanes = max(1, textLanes)
        // A lease outlives the job time limit, so only a dead worker's jobs are taken over.
        self.leaseSeconds = documents.pipeline.configuration.limits.jobSeconds * 2 + 30
        self.drainSeconds = drainSeconds
        self.name = LeaseOwners.newName()
        self.logger = logger
    }

    package func run() async throws { await serveSlots() }

    var slots: Int { concurrency + textLanes }
    func key(of item: Item) -> String { "\(item.job.id ?? 0)" }
    func release(_ item: Item) async throws { try await queue.release(item.job) }
    func reclaimDeadLeases() async throws -> Int { try await queue.reclaimLeases(where: LeaseOwners.isDeadLocalWorker) }

    /// The lanes (see the type's notes): text slots, the preview slot, the others. One lease query a
    /// turn: the queue puts preview jobs before playback ones.
    func lease(slot: Int) async throws -> Item? {
        let (readsText, takesPlayback) = (slot >= concurrency, slot > 0 || concurrency == 1)
        let kinds: Set<JobRecord.Kind> = readsText ? [.text] : takesPlayback ? [.preview, .playback] : [.preview]
        return try await queue.lease(worker: name, leaseSeconds: leaseSeconds, kinds: kinds)
    }

    private var queue: any JobQueue { documents.queue }
    private var arrivals: JobArrivals? { documents.arrivals }

    /// Waits for the next arrival or poll. Offers the slot to this process's enqueues meanwhile:
    /// returns the job one handed it (leased to this worker, and added to the running ones), if any.
    func waitIdle(slot: Int, since announced: UInt64, running: RunningWork<Item>) async -> Item? {
        guard let arrivals else {
            await waitForArrival(since: announced)
            return nil
        }
        // A reserved slot counts as a lease in flight: a drain waits for the job it is being handed.
        let taker = JobArrivals.Taker(lease: JobLease(worker: name, seconds: leaseSeconds)) { running.beginLeaseUnlessStopping() }
        guard case let .handed(handed) = await arrivals.wait(since: announced, upTo: pollInterval, taking: taker) else { return nil }
        if let handed { running.add(handed) }
        running.endLease()
        return handed
    }

    /// What a job of `kind` runs at: a preview job's thumbnail is what the uploader waits for; text
    /// and playback jobs run in the background, behind every render a person waits for.
    static func priority(of kind: JobRecord.Kind) -> WorkPriority {
        kind == .preview ? .interactive : .background
    }

    /// Runs a job and records how it ended; false when the drain cut it off first (nothing recorded).
    func process(_ item: Item, running: RunningWork<Item>) async -> Bool {
        let (job, document) = item
        var logger = logger
        logger[metadataKey: "preview.job"] = "\(job.id ?? 0)"
        logger[metadataKey: "preview.document"] = "\(document.id)"
        logger[metadataKey: "preview.sha256"] = "\(document.sha256)"
        let started = ContinuousClock.now
        // From when the job could run (its upload's commit, for a new one) to its lease: the queue's wake-up.
        let waited = max(0, Date().timeIntervalSince(job.availableAt))
        ServiceMetrics.jobWaitSeconds(nanoseconds: Int64(waited * 1e9), kind: job.kind.rawValue)
        logger[metadataKey: "preview.waited_ms"] = "\((waited * 10_000).rounded() / 10)"
        let documents = documents
        let heartbeat = Task { [logger] in await renewLease(of: job, logger: logger) }
        let outcome = await WorkPriority.$current.withValue(Self.priority(of: job.kind)) { await documents.outcome(of: job, document) }
        heartbeat.cancel()
        if Task.isCancelled { return false }
        ServiceMetrics.jobDurationSeconds(nanoseconds: started.duration(to: .now).nanoseconds, kind: document.kind.rawValue)
        // While the store refuses the outcome (a full disk under SQLite, a database outage), it is
        // recorded again until it is or the lease runs out.
        return await recordOutcome(running: running, logger: logger) {
            try await record(outcome, of: job, started: started, logger: logger)
        }
    }

    /// Records how `job` ended, in one transaction.
    private func record(_ outcome: JobOutcome, of job: JobRecord, started: ContinuousClock.Instant, logger: Logger) async throws {
        let documents = documents
        switch try await documents.finish(job, with: outcome) {
        case .done:
            faults.clear(logger: logger, proof: .write, backoff: backoff)
            ServiceMetrics.jobs(outcome: "done")
            logger.info("job done", metadata: ["preview.ms": "\(started.duration(to: .now).roundedMilliseconds)"])
        case let .failed(code, retrying):
            ServiceMetrics.jobs(outcome: retrying ? "retry" : "failed")
            logger.info("job failed", metadata: ["preview.code": "\(code)", "preview.status": "\(retrying ? JobRecord.Status.queued : .failed)"])
        case let .released(refusal):
            // The store refused, not the file: the slots pause and the fault is told once.
            _ = faults.recordRefusal(refusal, write: true, pausing: backoff, logger: logger)
            ServiceMetrics.jobs(outcome: "released")
        case .leaseLost:
            ServiceMetrics.jobs(outcome: "lease_lost")
            logger.warning("job finished after its lease ran out and was taken over; the new owner's outcome stands")
        }
    }

    /// Renews `job`'s lease every third of it until cancelled (the job ended) or the lease is lost.
    private func renewLease(of job: JobRecord, logger: Logger) async {
        let (queue, leaseSeconds) = (queue, leaseSeconds)
        while true {
            try? await Task.sleep(for: .seconds(leaseSeconds / 3))
            if Task.isCancelled { return }
            do {
                guard try await queue.renewLease(job, leaseSeconds: leaseSeconds) else {
                    logger.warning("a running job's lease was lost; its outcome will not be recorded")
                    return
                }
            } catch is CancellationError {
                return
            } catch {
                // The next beat tries again; a lease that runs out meanwhile is taken over, as it should be.
                logger.warning("could not renew a running job's lease", metadata: ["preview.error": "\(error)"])
            }
        }
    }
}
