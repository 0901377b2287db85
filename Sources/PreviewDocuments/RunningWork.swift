import Logging
import PreviewCore
import ServiceLifecycle

/// The work a worker holds (jobs, downloads), the leases being taken, and whether it is stopping.
/// Every change wakes ``settle()``, which waits without polling.
final class RunningWork<Item: Sendable>: Sendable {
    private struct State {
        var stopping = false
        var drainOver = false
        var items: [String: Item] = [:]
        /// Lease calls in flight: one may bring work to finish before the drain ends.
        var leasing = 0
        /// ``settle()`` waiting for the next change.
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let drainSeconds: Double
    private let key: @Sendable (Item) -> String
    private let state = Locked(State())

    /// - Parameters:
    ///   - drainSeconds: how long running work may go on after ``stop()``.
    ///   - key: what tells two items apart.
    init(drainSeconds: Double, key: @escaping @Sendable (Item) -> String) {
        self.drainSeconds = drainSeconds
        self.key = key
    }

    var isStopping: Bool { state.withLock { $0.stopping } }
    func add(_ item: Item) { change { $0.items[key(item)] = item } }
    func remove(_ item: Item) { change { $0.items[key(item)] = nil } }
    func beginLease() { change { $0.leasing += 1 } }
    func endLease() { change { $0.leasing -= 1 } }
    /// ``beginLease()`` unless stopping; whether it began.
    func beginLeaseUnlessStopping() -> Bool {
        var began = false
        change { state in
            guard !state.stopping else { return }
            state.leasing += 1
            began = true
        }
        return began
    }
    func remaining() -> [Item] { state.withLock { Array($0.items.values) } }

    /// Stops taking work; what runs has `drainSeconds` from now.
    func stop() {
        change { $0.stopping = true }
        let seconds = drainSeconds
        Task { [self] in
            try? await Task.sleep(for: .seconds(seconds))
            change { $0.drainOver = true }
        }
    }

    /// Returns after ``stop()``, once nothing runs and no lease is being taken, or once the drain time
    /// is over; also when the task is cancelled.
    func settle() async {
        while true {
            let settled = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let settled = state.withLock { state -> Bool in
                        if Task.isCancelled || state.stopping && (state.drainOver || state.items.isEmpty && state.leasing == 0) { return true }
                        state.waiter = continuation
                        return false
                    }
                    if settled { continuation.resume(returning: true) }
                }
            } onCancel: {
                change { _ in }
            }
            if settled { return }
        }
    }

    /// Applies `body` to the state and wakes ``settle()`` to look again.
    private func change(_ body: (inout State) -> Void) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            body(&state)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }
}

/// What one lease of a worker's slot came to (``RunningWork/lease(_:item:backoff:faults:logger:failure:)``).
enum LeaseTurn<Leased> {
    /// Work, already among the running items.
    case leased(Leased)
    /// Nothing to do now.
    case idle
    /// The lease call failed; it was logged, and a store that refused pauses the slots.
    case failed
    /// Cancelled while the database held the call: what it leased comes back when its lease runs out.
    case cancelled
}

extension RunningWork {
    /// One lease for a worker's slot, after `backoff`'s pause: `lease` runs counted as a lease in
    /// flight (the drain waits for it) until what it brings is among the running items.
    func lease<Leased>(
        _ lease: () async throws -> Leased?, item: (Leased) -> Item, backoff: Backoff, faults: FaultBurst,
        logger: Logger, failure: String
    ) async -> LeaseTurn<Leased> {
        await backoff.pause()
        beginLease()
        defer { endLease() }
        let leased: Leased?
        do {
            leased = try await lease()
            faults.clear(logger: logger, proof: .database, backoff: backoff)
        } catch is CancellationError {
            return .cancelled
        } catch {
            if !faults.recordRefusal(error, pausing: backoff, logger: logger) {
                backoff.fail()
                logger.error("\(failure)", metadata: ["preview.error": "\(error)"])
            }
            return .failed
        }
        guard let leased else { return .idle }
        add(item(leased))
        return .leased(leased)
    }
}

extension RunningWork {
    /// The life of a leasing worker (``QueueWorker``, ``DownloadWorker``): `slots` copies of `work`
    /// (given the slot's number) take and run items until a graceful shutdown; then what runs has
    /// the drain time to finish, the slots still waiting on a thread stop waiting (the thread runs on
    /// to its deadline: nothing can hurry a library call, and its outcome is dropped), and each item
    /// still running goes back to its queue through `release`, its attempt not counted.
    func serve(slots: Int, work: @escaping @Sendable (Int) async -> Void, release: (Item) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for slot in 0..<slots {
                group.addTask { await work(slot) }
            }
            await withGracefulShutdownHandler {
                await settle()
            } onGracefulShutdown: { [self] in
                stop()
            }
            group.cancelAll()
        }
        for item in remaining() { await release(item) }
    }
}
