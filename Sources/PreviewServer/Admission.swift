import Synchronization

/// A counter of work in flight with a ceiling: `tryEnter()` admits while fewer than `limit` are in,
/// and never waits. O(1), safe from any thread.
final class Admission: Sendable {
    let limit: Int
    private let inFlight = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// True (and counted) when there is room; pair with ``leave()``.
    func tryEnter() -> Bool {
        inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() {
        inFlight.withLock { $0 -= 1 }
    }
}
