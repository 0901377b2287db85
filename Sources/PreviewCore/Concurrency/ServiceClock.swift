import Foundation

/// Where a service reads the time, so that windows, lockouts and expiries are decided by a clock
/// that a test can drive instead of by how fast the machine is.
///
/// Two readings of one clock: ``now`` is wall time, for what is stored or signed (a share's
/// expiry, a signed URL's `exp`); ``instant`` is monotonic, for windows and lifetimes kept in
/// memory (a throttle's window, a lockout, a session's idle time, a back-off's pause).
public protocol ServiceClock: Sendable {
    /// Wall time.
    var now: Date { get }
    /// Monotonic time.
    var instant: ContinuousClock.Instant { get }
    /// Suspends until ``instant`` reaches `deadline` (at once when it has).
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension ServiceClock {
    /// Seconds since 1970 of ``now``, whole.
    package var unixSeconds: Int { Int(now.timeIntervalSince1970) }
}

/// The machine's clocks: `Date()` and `ContinuousClock`.
public struct SystemClock: ServiceClock {
    public init() {}
    public var now: Date { Date() }
    public var instant: ContinuousClock.Instant { .now }
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}
