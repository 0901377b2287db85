import PreviewCore

/// Failed sign-ins (a wrong token, from the form or a bearer header) counted per client address and
/// over all addresses. An address with ``perAddress`` failures within ``window`` is refused for a
/// lockout that doubles with each one it earns (one ``window`` first, at most ``maxLockout``); all
/// addresses together are refused for one window once they reach ``overall`` failures in it, so
/// guessing from many addresses is slowed too. Bounded memory: at most ``capacity`` addresses.
final class SignInThrottle: Sendable {
    static let perAddress = 5
    static let overall = 100
    static let maxLockout: Duration = .seconds(3600)
    static let capacity = 10_000

    private struct Address {
        var failures: [ContinuousClock.Instant] = []
        var lockouts = 0
        var lockedUntil: ContinuousClock.Instant?
    }

    private struct State {
        var addresses: [String: Address] = [:]
        var recent: [ContinuousClock.Instant] = []
        var everyoneLockedUntil: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    /// How long a failure counts, and the first lockout.
    let window: Duration
    private let clock: any ServiceClock

    init(window: Duration = .seconds(60), clock: any ServiceClock) {
        self.window = window
        self.clock = clock
    }

    /// How long `address` must wait before trying again; nil when it may try now.
    func refusal(for address: String) -> Duration? {
        let now = clock.instant
        return state.withLock { state in
            let waits = [state.addresses[address]?.lockedUntil, state.everyoneLockedUntil].compactMap { $0 }.map { now.duration(to: $0) }
            return waits.filter { $0 > .zero }.max()
        }
    }

    /// Counts a failed sign-in from `address`.
    func recordFailure(from address: String) {
        let now = clock.instant
        state.withLock { state in
            if state.addresses[address] == nil, state.addresses.count >= Self.capacity {
                state.addresses = state.addresses.filter { ($0.value.lockedUntil ?? now) > now || $0.value.failures.contains { $0.duration(to: now) < window } }
                if state.addresses.count >= Self.capacity { state.addresses.removeAll() }
            }
            var entry = state.addresses[address] ?? Address()
            entry.failures = entry.failures.filter { $0.duration(to: now) < window } + [now]
            if entry.failures.count >= Self.perAddress {
                let lockout = min(window * (1 << min(entry.lockouts, 16)), Self.maxLockout)
                entry.lockedUntil = now + lockout
                entry.lockouts += 1
                entry.failures.removeAll()
            }
            state.addresses[address] = entry
            state.recent = state.recent.filter { $0.duration(to: now) < window } + [now]
            if state.recent.count >= Self.overall {
                state.everyoneLockedUntil = now + window
                state.recent.removeAll()
            }
        }
    }

    /// A right token forgets the address's failures (not its lockout count: guessing again locks it longer).
    func recordSuccess(from address: String) {
        state.withLock { $0.addresses[address]?.failures.removeAll() }
    }
}
