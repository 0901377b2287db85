import Synchronization

/// The number of queued jobs for admission control, counted at most once a second: an upload reads
/// a number instead of running a count over every job.
final class QueueDepth: Sendable {
    private let cached = Mutex<(count: Int, at: ContinuousClock.Instant)?>(nil)

    /// One more job queued here since the last count.
    func noteEnqueued() {
        cached.withLock { $0?.count += 1 }
    }

    /// The count, from `count()` when the last one is older than a second.
    func current(_ count: () async throws -> Int) async rethrows -> Int {
        if let last = cached.withLock({ $0 }), last.at.duration(to: .now) < .seconds(1) { return last.count }
        let fresh = try await count()
        cached.withLock { $0 = (fresh, .now) }
        return fresh
    }
}
