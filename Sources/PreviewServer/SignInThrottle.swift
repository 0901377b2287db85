import PreviewCore

/// Failed sign-ins (a wrong token, from the form or a bearer header; a wrong share password)
/// counted per key (a client address, a share) and, for tokens, over all keys. A key with
/// `limit` failures (``perAddress`` unless set) within ``window`` is refused for a lockout that doubles with each one it
/// earns (one ``window`` first, at most ``maxLockout``); all keys together are refused for one
/// window once they reach `overall` failures in it, so guessing from many addresses is slowed too.
///
/// Only guesses are ever refused: a caller checks a credential that is cheap to check (the service
/// token, a device token) before asking, so the right one passes whatever the lockouts. A slow check
/// (a password's hash) takes its place first with ``attempt(from:)``, so that concurrent guesses
/// cannot all pass the check before the first failure is counted. Bounded memory: at most
/// ``capacity`` keys.
package final class SignInThrottle: Sendable {
    package static let perAddress = 5
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
    /// Failures of one key within a window that lock it out.
    private let limit: Int
    /// Failures over all keys within a window that lock everyone out; nil for none.
    private let overall: Int?
    private let clock: any ServiceClock

    package init(
        window: Duration = .seconds(60), limit: Int = SignInThrottle.perAddress, overall: Int? = SignInThrottle.overall, clock: any ServiceClock
    ) {
        self.window = window
        self.limit = limit
        self.overall = overall
        self.clock = clock
    }

    /// How long `address` must wait before trying again; nil when it may try now.
    func refusal(for address: String) -> Duration? {
        let now = clock.instant
        return state.withLock { wait(in: $0, for: address, now: now) }
    }

    /// Counts a failed sign-in from `address`.
    func recordFailure(from address: String) {
        let now = clock.instant
        state.withLock { record(in: &$0, from: address, now: now) }
    }

    /// Takes a try's place: how long `address` must wait (nothing counted), or nil after counting
    /// the try as a failure, which ``giveBack(from:)`` or ``recordSuccess(from:)`` takes back when
    /// it was right.
    package func attempt(from address: String) -> Duration? {
        let now = clock.instant
        return state.withLock { state in
            if let wait = wait(in: state, for: address, now: now) { return wait }
            record(in: &state, from: address, now: now)
            return nil
        }
    }

    /// A right token forgets the address's failures (not its lockout count: guessing again locks it longer).
    package func recordSuccess(from address: String) {
        state.withLock { state in
            state.addresses[address]?.failures.removeAll()
            if !state.recent.isEmpty { state.recent.removeLast() }
        }
    }

    /// Takes back the failure ``attempt(from:)`` counted for a try that was right, and only that one.
    package func giveBack(from address: String) {
        state.withLock { state in
            if state.addresses[address]?.failures.isEmpty == false { state.addresses[address]?.failures.removeLast() }
            if !state.recent.isEmpty { state.recent.removeLast() }
        }
    }

    private func wait(in state: State, for address: String, now: ContinuousClock.Instant) -> Duration? {
        let waits = [state.addresses[address]?.lockedUntil, state.everyoneLockedUntil].compactMap { $0 }.map { now.duration(to: $0) }
        return waits.filter { $0 > .zero }.max()
    }

    private func record(in state: inout State, from address: String, now: ContinuousClock.Instant) {
        if state.addresses[address] == nil, state.addresses.count >= Self.capacity {
            state.addresses = state.addresses.filter {
                ($0.value.lockedUntil ?? now) > now || $0.value.failures.contains { $0.duration(to: now) < window }
            }
            if state.addresses.count >= Self.capacity { state.addresses.removeAll() }
        }
        var entry = state.addresses[address] ?? Address()
        entry.failures = entry.failures.filter { $0.duration(to: now) < window } + [now]
        if entry.failures.count >= limit {
            let lockout = min(window * (1 << min(entry.lockouts, 16)), Self.maxLockout)
            entry.lockedUntil = now + lockout
            entry.lockouts += 1
            entry.failures.removeAll()
        }
        state.addresses[address] = entry
        guard let overall else { return }
        state.recent = state.recent.filter { $0.duration(to: now) < window } + [now]
        if state.recent.count >= overall {
            state.everyoneLockedUntil = now + window
            state.recent.removeAll()
        }
    }
}
