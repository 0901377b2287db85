import Foundation
import PreviewCore

/// A wait that ran out: what did not happen, and how long it was waited for.
package struct WaitTimedOut: Error, CustomStringConvertible {
    package let what: String
    package let timeout: Duration
    package var description: String { "waited \(timeout) for \(what), in vain" }
}

/// Returns once `condition` holds, checking it every `interval`; throws ``WaitTimedOut`` naming
/// `what` after `timeout`. The timeout is generous on purpose: it bounds a test that would
/// otherwise hang, it is not a measure of speed.
package func waitUntil(
    _ what: String, timeout: Duration = .seconds(120), interval: Duration = .milliseconds(20),
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        // Checked once more after the deadline: a thread held up past it by a loaded machine still sees what happened meanwhile.
        guard ContinuousClock.now < deadline else {
            if try condition() { return }
            throw WaitTimedOut(what: what, timeout: timeout)
        }
        Thread.sleep(forTimeInterval: interval.seconds)
    }
}

/// The first non-nil value of `value`, waited for as ``waitUntil(_:timeout:interval:_:)`` waits.
package func waitFor<Value>(
    _ what: String, timeout: Duration = .seconds(120), interval: Duration = .milliseconds(20),
    _ value: () throws -> Value?
) throws -> Value {
    var found: Value?
    try waitUntil(what, timeout: timeout, interval: interval) {
        found = try value()
        return found != nil
    }
    return found!
}

/// Runs blocking `work` (sockets, ``waitUntil(_:timeout:interval:_:)``) on a thread of its own and
/// returns its result: an in-process server's requests run on Swift's few cooperative threads,
/// which a test blocked on a socket must not hold.
package func onOwnThread<T: Sendable>(_ work: @Sendable @escaping () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// ``waitUntil(_:timeout:interval:_:)`` for a condition that awaits (the store's calls): it sleeps
/// between checks, holding no thread.
package func waitUntilAsync(
    _ what: String, timeout: Duration = .seconds(120), interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            if try await condition() { return }
            throw WaitTimedOut(what: what, timeout: timeout)
        }
        try await Task.sleep(for: interval)
    }
}
