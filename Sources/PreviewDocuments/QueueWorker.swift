import Foundation
import Logging
import PreviewCore
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
package struct QueueWorker: Service {
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
        self.name = Self.newLeaseOwner()
        self.logger = logger
    }

    package func run() async throws {
        let running = RunningWork<JobRecord>(drainSeconds: drainSeconds) { "\($0.id ?? 0)" }
        // A released job that finishes later after all records nothing: its lease is gone.
        let queue = queue
        await running.serve(slots: concurrency + textLanes, work: { await work(slot: $0, running: running) }) { job in
            do {
                try await queue.release(job)
                logger.warning("released a running job at shutdown", metadata: ["preview.job": "\(job.id ?? 0)"])
            } catch {
                logger.error("could not release a running job at shutdown", metadata: ["preview.job": "\(job.id ?? 0)", "preview.error": "\(error)"])
            }
        }
    }

    static let host = ProcessInfo.processInfo.hostName

    /// A lease owner's name for a worker of this process: `host/pid/random`, which
    /// ``isDeadLocalWorker(_:)`` reads back.
    static func newLeaseOwner() -> String { "\(host)/\(getpid())/\(UUID().uuidString.prefix(8))" }

    private var queue: any JobQueue { documents.queue }
    private var arrivals: JobArrivals? { documents.arrivals }

    /// True for a lease owner that was a worker process on this host which no longer runs: gone,
    /// or killed and not yet reaped by its parent (a zombie keeps its pid but runs nothing).
    static func isDeadLocalWorker(_ owner: String) -> Bool {
        let parts = owner.split(separator: "/")
        guard parts.count == 3, parts[0] == host, let pid = Int32(parts[1]), pid != getpid() else { return false }
        return isGone(pid)
    }

    /// Whether process `pid` of this host no longer runs: gone, or a zombie.
    static func isGone(_ pid: Int32) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        return isZombie(pid)
    }

    /// Whether process `pid` has exited and waits to be reaped (its state in `/proc/PID/stat` is `Z`).
    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: name)...].drop { $0 == " " }.first == "Z"
    }

    private func reclaimDeadLeases() async {
        do {
            let queue = queue
            let reclaimed = try await queue.reclaimLeases(where: Self.isDeadLocalWorker)
            if reclaimed > 0 { logger.warning("reclaimed jobs of a worker that died", metadata: ["preview.jobs": "\(reclaimed)"]) }
        } catch {
            logger.error("could not reclaim leases", metadata: ["preview.error": "\(error)"])
        }
    }

    private func work(slot: Int, running: RunningWork<JobRecord>) async {
        if slot == 0 { await reclaimDeadLeases() }
        var idlePolls = 0
        var handed: JobArrivals.Handed?
        while !Task.isCancelled {
            let job: JobRecord, document: Document
            if let next = handed {
                // Leased to this worker by the upload's own transaction, already among the running ones.
                (job, document) = next
                handed = nil
            } else {
                guard !running.isStopping else { return }
                let announced = arrivals?.announcements ?? 0
                // The lanes (see the type's notes): text slots, the preview slot, the others.
                let (queue, name, leaseSeconds) = (queue, name, leaseSeconds)
                let (readsText, takesPlayback) = (slot >= concurrency, slot > 0 || concurrency == 1)
                // One lease query a turn: the queue puts preview jobs before playback ones.
                let kinds: Set<JobRecord.Kind> = readsText ? [.text] : takesPlayback ? [.preview, .playback] : [.preview]
                let turn = await running.lease(
                    { try await queue.lease(worker: name, leaseSeconds: leaseSeconds, kinds: kinds) },
                    item: \.job, backoff: backoff, faults: faults, logger: logger, failure: "lease failed")
                switch turn {
                case let .leased(leased): (job, document) = leased
                case .failed: continue
                case .cancelled: return
                case .idle:
                    idlePolls += 1
                    if slot == 0, idlePolls % 25 == 0 { await reclaimDeadLeases() }
                    handed = await idle(since: announced, running: running)
                    continue
                }
            }
            // A job the drain cut off stays among the running ones, to be released.
            guard await process(job, document, running: running) else { return }
            running.remove(job)
        }
    }

    /// Waits for the next arrival or poll. Offers the slot to this process's enqueues meanwhile:
    /// returns the job one handed it (leased to this worker, and added to the running ones), if any.
    private func idle(since announced: UInt64, running: RunningWork<JobRecord>) async -> JobArrivals.Handed? {
        guard let arrivals else {
            try? await Task.sleep(for: pollInterval)
            return nil
        }
        // A reserved slot counts as a lease in flight: a drain waits for the job it is being handed.
        let taker = JobArrivals.Taker(lease: JobLease(worker: name, seconds: leaseSeconds)) { running.beginLeaseUnlessStopping() }
        guard case let .handed(handed) = await arrivals.wait(since: announced, upTo: pollInterval, taking: taker) else { return nil }
        if let handed { running.add(handed.job) }
        running.endLease()
        return handed
    }

    /// What a job of `kind` runs at: a preview job's thumbnail is what the uploader waits for; text
    /// and playback jobs run in the background, behind every render a person waits for.
    static func priority(of kind: JobRecord.Kind) -> WorkPriority {
        kind == .preview ? .interactive : .background
    }

    /// Runs `job` and records how it ended; false when the drain cut it off first (nothing recorded).
    private func process(_ job: JobRecord, _ document: Document, running: RunningWork<JobRecord>) async -> Bool {
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
        do {
            let failure = try await faults.retrying(
                until: documents.clock.instant + .seconds(leaseSeconds), on: documents.clock, pausing: backoff,
                logger: logger, while: { !running.isStopping }
            ) {
                try await record(outcome, of: job, started: started, logger: logger)
            }
            if let failure, StoreFault(failure) == nil {
                logger.error("could not record the job's outcome", metadata: ["preview.error": "\(failure)"])
            }
            return true
        } catch {
            return false
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
