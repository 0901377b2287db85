import Logging
import PreviewCore
import PreviewStore

/// A run of ``StoreFault``s told once: the first is logged with its cause, then a reminder with the
/// count at most once a minute while they go on, and the recovery when ``clear(logger:proof:)`` is
/// called after a success that proves it. Every fault is counted in `docpreview_store_faults_total{fault, place}`.
package final class FaultBurst: Sendable {
    /// What a success proves works again.
    package enum Proof: Sendable {
        /// A lease or another call to the database: it ends a burst of the database's refusals only.
        case database
        /// A written outcome (a job's derivatives or a download's file stored, and recorded): it ends any burst.
        case write
    }

    private struct State {
        var fault: StoreFault?
        var count = 0
        var loggedAt: ContinuousClock.Instant?
        /// Whether a write was refused in this burst (the blobs' disk or object store, not only the database).
        var writes = false
    }

    private let place: String
    private let state = Locked(State())

    /// - Parameter place: what meets the faults (`requests`, `worker`), for the metric and the logs.
    package init(place: String) {
        self.place = place
    }

    /// The fault of the burst going on, if any.
    package var current: StoreFault? { state.withLock { $0.fault } }

    /// Counts `fault`, met by a write (`write`) or by a call to the database, and tells it when it
    /// starts a burst (or a minute has passed).
    package func record(_ fault: StoreFault, cause: any Error, write: Bool = false, logger: Logger) {
        ServiceMetrics.storeFaults(fault: fault.rawValue, place: place)
        let told: (first: Bool, count: Int)? = state.withLock { state in
            let first = state.fault != fault
            if first { (state.count, state.writes) = (0, false) }
            state.count += 1
            state.fault = fault
            state.writes = state.writes || write
            guard first || state.loggedAt.map({ $0.duration(to: .now) >= .seconds(60) }) ?? true else { return nil }
            state.loggedAt = .now
            return (first, state.count)
        }
        guard let told else { return }
        logger.error(
            told.first ? "store fault: \(fault.rawValue)" : "store fault goes on: \(fault.rawValue)",
            metadata: [
                "preview.fault": "\(fault.rawValue)", "preview.place": "\(place)", "preview.count": "\(told.count)",
                "preview.error": "\(cause)"
            ])
    }

    /// When `error` is the store refusing a worker (a full disk, an unreachable database or object
    /// store) in a `write` or a call to the database: `backoff` pauses its slots and the fault is
    /// recorded. False for any other error.
    func recordRefusal(_ error: any Error, write: Bool = false, pausing backoff: Backoff, logger: Logger) -> Bool {
        guard let fault = StoreFault(error) else { return false }
        backoff.fail()
        record(fault, cause: error, write: write, logger: logger)
        return true
    }

    /// Runs `attempt` (a worker recording an outcome) until it goes through. While the store refuses
    /// it (``recordRefusal(_:write:pausing:logger:)``), it runs again after `backoff`'s pause, as long
    /// as `clock` is before `deadline` (the lease's end) and `keepTrying()`: the work does not wait
    /// out its lease once the store takes writes again. Returns the error it gave up on, nil once it
    /// went through; a cancellation is thrown.
    func retrying(
        until deadline: ContinuousClock.Instant, on clock: any ServiceClock, pausing backoff: Backoff, logger: Logger,
        while keepTrying: () -> Bool, _ attempt: () async throws -> Void
    ) async throws(CancellationError) -> (any Error)? {
        while true {
            do {
                try await attempt()
                return nil
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard recordRefusal(error, pausing: backoff, logger: logger), clock.instant < deadline, keepTrying() else { return error }
                await backoff.pause()
            }
        }
    }

    /// A success that gives `proof`: it ends the burst going on (logging how many faults it had)
    /// unless a write was refused in it and this success is no write (a lease goes through while
    /// the object store still refuses every write), and `backoff`, if given, with it. True when no
    /// burst goes on any more.
    @discardableResult
    package func clear(logger: Logger, proof: Proof = .write, backoff: Backoff? = nil) -> Bool {
        let ended: (fault: StoreFault, count: Int)?? = state.withLock { state in
            guard let fault = state.fault else { return .some(nil) }
            if state.writes && proof == .database { return nil }
            defer { state = State() }
            return (fault, state.count)
        }
        guard let ended else { return false }
        backoff?.succeed()
        if let ended {
            logger.notice("store fault cleared: \(ended.fault.rawValue)", metadata: ["preview.place": "\(place)", "preview.count": "\(ended.count)"])
        }
        return true
    }
}

/// Exponential back-off shared by a worker's slots while the store refuses them: each fault doubles
/// the pause before the next lease (from `base`, capped at `cap`), a success ends it.
package final class Backoff: Sendable {
    private let base: Duration
    private let cap: Duration
    private let clock: any ServiceClock
    private let state = Locked((failures: 0, pause: Duration.zero, until: ContinuousClock.Instant?.none))

    init(base: Duration = .milliseconds(250), cap: Duration = .seconds(30), clock: any ServiceClock) {
        self.base = base
        self.cap = cap
        self.clock = clock
    }

    func fail() {
        let now = clock.instant
        state.withLock { state in
            state.failures += 1
            state.pause = min(cap, base * (1 << min(state.failures - 1, 20)))
            state.until = now + state.pause
        }
    }

    func succeed() {
        state.withLock { $0 = (0, .zero, nil) }
    }

    /// The pause the last fault set (zero after a success).
    var pending: Duration { state.withLock { $0.pause } }

    /// Sleeps out the pause going on, if any.
    func pause() async {
        guard let until = state.withLock({ $0.until }), until > clock.instant else { return }
        try? await clock.sleep(until: until)
    }
}
