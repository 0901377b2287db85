import PreviewCore

/// How often store-wide searches may run, per owner searched (all owners together count as one):
/// a bucket of ``burst`` searches per owner, filled again at ``perSecond``. A search costs its
/// reads up to ``PageSearch/timeout``, so one caller cannot keep the index busy for everyone; the
/// service's searches for different owners never wait for each other. Bounded memory: at most
/// ``capacity`` owners (full buckets are forgotten first).
final class SearchPace: Sendable {
    static let perSecond = 5.0
    static let burst = 20.0
    static let capacity = 10_000

    private struct Bucket {
        var tokens: Double
        var filledAt: ContinuousClock.Instant
    }

    private let buckets = Locked([String: Bucket]())
    private let clock: any ServiceClock

    init(clock: any ServiceClock) {
        self.clock = clock
    }

    /// Takes a search of `owner`'s documents (of everyone's when nil): nil when it may run now,
    /// else how long until it may.
    func take(owner: String?) -> Duration? {
        let now = clock.instant
        let key = owner.map { "o:" + $0 } ?? "*"
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Self.burst, filledAt: now)
            bucket.tokens = min(Self.burst, bucket.tokens + max(0, bucket.filledAt.duration(to: now).seconds) * Self.perSecond)
            bucket.filledAt = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return .seconds((1 - bucket.tokens) / Self.perSecond)
            }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= Self.capacity { forgetFull(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    /// Forgets the buckets that have filled again (as good as new), or all when none has.
    private func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = Duration.seconds(Self.burst / Self.perSecond)
        buckets = buckets.filter { $0.value.filledAt.duration(to: now) < refill }
        if buckets.count >= Self.capacity { buckets.removeAll() }
    }
}
