import Foundation
import PreviewCore

/// A ``ServiceClock`` that moves only when a test calls ``advance(by:)``: a throttle's window or an
/// expiry is then decided by the test, never by how slow the machine is. Sleepers wake when the
/// clock is advanced past their deadline.
package final class ManualClock: ServiceClock {
    private struct Sleeper {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed = Duration.zero
        var sleepers: [UInt64: Sleeper] = [:]
        var nextSleeper: UInt64 = 0
    }

    private let startDate: Date
    private let startInstant: ContinuousClock.Instant
    private let state = Locked(State())

    /// A clock standing at `date` (wall time); its monotonic reading starts at the machine's.
    package init(date: Date = Date()) {
        startDate = date
        startInstant = .now
    }

    package var now: Date {
        let elapsed = state.withLock { $0.elapsed }
        return startDate.addingTimeInterval(elapsed.seconds)
    }

    package var instant: ContinuousClock.Instant {
        startInstant + state.withLock { $0.elapsed }
    }

    /// How many tasks sleep on this clock.
    package var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock on by `duration` and wakes every sleeper whose deadline it passed.
    package func advance(by duration: Duration) {
        let startInstant = startInstant
        let woken: [Sleeper] = state.withLock { state in
            state.elapsed += duration
            let now = startInstant + state.elapsed
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    package func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id: UInt64 = state.withLock { state in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        let startInstant = startInstant
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if deadline <= startInstant + state.elapsed || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
