import Foundation
import PreviewCore

/// A ``ServiceClock`` that moves only when a test calls ``advance(by:)``: a throttle's window or an
/// expiry is then decided by the test, never by how slow the machine is. Sleepers wake when the
/// clock is advanced past their deadline.
public final class ManualClock: ServiceClock, @unchecked Sendable {  // `state` is only touched with `lock` held
    private struct Sleeper {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private let startDate: Date
    private let startInstant: ContinuousClock.Instant
    private var elapsed = Duration.zero
    private var sleepers: [UInt64: Sleeper] = [:]
    private var nextSleeper: UInt64 = 0

    /// A clock standing at `date` (wall time); its monotonic reading starts at the machine's.
    public init(date: Date = Date()) {
        startDate = date
        startInstant = .now
    }

    public var now: Date {
        lock.withLock { startDate.addingTimeInterval(Self.seconds(elapsed)) }
    }

    public var instant: ContinuousClock.Instant {
        lock.withLock { startInstant + elapsed }
    }

    /// How many tasks sleep on this clock.
    public var sleeping: Int { lock.withLock { sleepers.count } }

    /// Moves the clock on by `duration` and wakes every sleeper whose deadline it passed.
    public func advance(by duration: Duration) {
        let woken: [Sleeper] = lock.withLock {
            elapsed += duration
            let now = startInstant + elapsed
            let due = sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id: UInt64 = lock.withLock {
            nextSleeper += 1
            return nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = lock.withLock {
                    if deadline <= startInstant + elapsed || Task.isCancelled { return true }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }
}
