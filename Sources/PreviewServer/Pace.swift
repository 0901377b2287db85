import PreviewCore

/// How often something may be asked for, per key (an owner, a client address, a share): a bucket of
/// ``burst`` requests per key, filled again at ``perSecond``. A request past it is told how long to
/// wait (`429` with `Retry-After`), so one caller cannot keep a costly read busy for everyone, and
/// callers with other keys never wait for each other. Bounded memory: at most ``capacity`` keys
/// (full buckets are forgotten first).
package final class Pace: Sendable {
    static let capacity = 10_000
    let perSecond: Double
    let burst: Double

    private struct Bucket {
        var tokens: Double
        var filledAt: ContinuousClock.Instant
    }

    private let buckets = Locked([String: Bucket]())
    private let clock: any ServiceClock

    package init(perSecond: Double, burst: Double, clock: any ServiceClock) {
        self.perSecond = perSecond
        self.burst = burst
        self.clock = clock
    }

    /// Takes one request of each of `keys`: nil when all may run now (each is counted), else how
    /// long until the slowest may (none is counted).
    package func take(_ keys: [String]) -> Duration? {
        let now = clock.instant
        return buckets.withLock { buckets in
            var filled: [String: Bucket] = [:]
            var wait: Duration?
            for key in keys {
                var bucket = buckets[key] ?? Bucket(tokens: burst, filledAt: now)
                bucket.tokens = min(burst, bucket.tokens + max(0, bucket.filledAt.duration(to: now).seconds) * perSecond)
                bucket.filledAt = now
                if bucket.tokens < 1 { wait = max(wait ?? .zero, .seconds((1 - bucket.tokens) / perSecond)) }
                filled[key] = bucket
            }
            if wait == nil { for key in keys { filled[key]?.tokens -= 1 } }
            if buckets.count + filled.count > Self.capacity { forgetFull(&buckets, now: now) }
            buckets.merge(filled) { $1 }
            return wait
        }
    }

    /// `429` with `Retry-After` when `keys` must wait, in `what`'s words ("searches of these documents").
    func check(_ keys: [String], _ what: String) throws {
        guard let wait = take(keys) else { return }
        let seconds = max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
        throw APIError(.queueFull, "Too many \(what); try again in \(seconds) s.", headers: [.retryAfter: "\(seconds)"])
    }

    /// Forgets the buckets that have filled again (as good as new), or all when none has.
    private func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = Duration.seconds(burst / perSecond)
        buckets = buckets.filter { $0.value.filledAt.duration(to: now) < refill }
        if buckets.count >= Self.capacity { buckets.removeAll() }
    }
}
