import PreviewCore
import PreviewDomain

/// Tells the idle queue workers (and link fetchers) of this process that a job (or a link) was just
/// enqueued here, so an upload is picked up at once rather than at the workers' next poll (work
/// enqueued by other processes is still found by polling). A worker notes ``announcements`` before it looks for a job and
/// waits ``since`` that count: an announcement between its look and its wait is not missed.
///
/// A waiting worker that offers a ``Taker`` can be handed its next job outright: an enqueue
/// ``reserve()``s it, leases the new job to it in the enqueue's own transaction, and hands it the
/// job in memory, so the job starts without a lease query of its own (the queue's wake-up off an
/// upload's path). A job handed this way goes before any queued by another process since the
/// worker last looked: the owners' fair order holds between jobs that wait, and a worker is idle
/// only when none did at its last look.
public final class JobArrivals: Sendable {
    /// A waiting worker's offer to be handed its next job.
    package struct Taker: Sendable {
        /// Whom the handed job is leased to, for how long.
        package let lease: JobLease
        /// Called when an enqueue reserves the worker; false refuses (a worker that is stopping).
        let reserve: @Sendable () -> Bool

        package init(lease: JobLease, reserve: @escaping @Sendable () -> Bool) {
            self.lease = lease
            self.reserve = reserve
        }
    }

    /// A job leased to its worker by the enqueue that made it.
    package typealias Handed = (job: JobRecord, document: Document)

    /// A worker that an enqueue reserved: it waits for ``hand(_:)`` or ``decline()``, exactly one of
    /// which its reserver calls.
    package struct Reservation: Sendable {
        /// Whom to lease the job to.
        package let lease: JobLease
        fileprivate let continuation: CheckedContinuation<WaitOutcome?, Never>

        /// Gives the worker `handed`, a job leased to ``lease`` in a transaction that committed.
        package func hand(_ handed: Handed) { continuation.resume(returning: .handed(handed)) }
        /// Lets the worker go without a job (the enqueue failed, or leased nothing).
        package func decline() { continuation.resume(returning: .handed(nil)) }
    }

    /// A waiting worker: resumed with nil when woken (announced or timed out), or with what its
    /// reservation came to.
    private struct Waiter {
        var continuation: CheckedContinuation<WaitOutcome?, Never>
        var taker: Taker?
    }

    private struct Waiting {
        var waiters: [UInt64: Waiter] = [:]
        /// Waits whose time ran out before they were registered.
        var expired: Set<UInt64> = []
        var nextID: UInt64 = 0
        var announcements: UInt64 = 0
    }

    private let state = Locked(Waiting())

    package init() {}

    /// Announcements so far.
    package var announcements: UInt64 { state.withLock { $0.announcements } }

    /// Workers waiting now.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Wakes every worker waiting now.
    package func announce() {
        let woken = state.withLock { state in
            state.announcements += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        woken.forEach { $0.resume(returning: nil) }
    }

    /// Takes one waiting worker that offered a ``Taker`` and accepts (the oldest wait first); nil
    /// when none does. The caller must end the reservation with ``Reservation/hand(_:)`` or
    /// ``Reservation/decline()``.
    package func reserve() -> Reservation? {
        state.withLock { state in
            for id in state.waiters.keys.sorted() {
                guard let taker = state.waiters[id]?.taker, taker.reserve() else { continue }
                let waiter = state.waiters.removeValue(forKey: id)!
                return Reservation(lease: taker.lease, continuation: waiter.continuation)
            }
            return nil
        }
    }

    /// Why a ``wait(since:upTo:taking:)`` ended.
    package enum WaitOutcome: Sendable, Equatable {
        case announced, timedOut
        /// An enqueue reserved the worker (its ``Taker/reserve`` returned true), then handed it a
        /// job leased to it, or nil when it leased none.
        case handed(Handed?)

        package static func == (left: WaitOutcome, right: WaitOutcome) -> Bool {
            switch (left, right) {
            case (.announced, .announced), (.timedOut, .timedOut): true
            case let (.handed(left), .handed(right)): left?.job == right?.job && left?.document == right?.document
            default: false
            }
        }
    }

    /// Returns once there were more than `seen` announcements, or after `timeout`, whichever comes
    /// first; with `taker`, also when an enqueue reserves this worker (then once it is handed its job
    /// or declined, whatever the timeout).
    @discardableResult
    package func wait(since seen: UInt64, upTo timeout: Duration, taking taker: Taker? = nil) async -> WaitOutcome {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.expire(id)
        }
        let reserved = await withCheckedContinuation { (continuation: CheckedContinuation<WaitOutcome?, Never>) in
            let ended = state.withLock { state in
                if state.expired.remove(id) != nil || state.announcements != seen { return true }
                state.waiters[id] = Waiter(continuation: continuation, taker: taker)
                return false
            }
            if ended { continuation.resume(returning: nil) }
        }
        timer.cancel()
        return state.withLock { state in
            state.expired.remove(id)
            return reserved ?? (state.announcements != seen ? .announced : .timedOut)
        }
    }

    private func expire(_ id: UInt64) {
        let continuation = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil as CheckedContinuation<WaitOutcome?, Never>?
            }
            return waiter.continuation
        }
        continuation?.resume(returning: nil)
    }
}
