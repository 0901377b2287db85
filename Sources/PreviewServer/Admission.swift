import Synchronization

/// A counter of work in flight with a ceiling: `tryEnter()` admits while fewer than `limit` are in,
/// and never waits. O(1), safe from any thread.
final class Admission: Sendable {
    let limit: Int
    private let inFlight = Mutex((count: 0, highest: 0))

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// True (and counted) when there is room; pair with ``leave()``.
    func tryEnter() -> Bool {
        inFlight.withLock { state in
            guard state.count < limit else { return false }
            state.count += 1
            state.highest = max(state.highest, state.count)
            return true
        }
    }

    func leave() {
        inFlight.withLock { $0.count -= 1 }
    }

    /// The most ever in flight at once.
    var highest: Int { inFlight.withLock { $0.highest } }
}

/// The number of queued jobs for admission control, counted at most once a second: an upload reads
/// a number instead of running a count over every job.
final class QueueDepth: Sendable {
    private let cached = Mutex<(count: Int, at: ContinuousClock.Instant)?>(nil)

    /// One more job queued here since the last count.
    func noteEnqueued() {
        cached.withLock { $0?.count += 1 }
    }

    /// The count, from `count()` when the last one is older than a second.
    func current(_ count: () throws -> Int) rethrows -> Int {
        if let last = cached.withLock({ $0 }), last.at.duration(to: .now) < .seconds(1) { return last.count }
        let fresh = try count()
        cached.withLock { $0 = (fresh, .now) }
        return fresh
    }
}
