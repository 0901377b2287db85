/// At most `width` tasks inside at once; the others wait their turn in order of arrival, suspended,
/// holding no thread. A task cancelled while it waits stops waiting with `CancellationError`.
package final class AsyncGate: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var issued: UInt64 = 0
    }

    private let state: Locked<State>

    package init(width: Int) {
        state = Locked(State(free: max(1, width)))
    }

    /// How many tasks wait for a place.
    package var waiting: Int {
        state.withLock { $0.waiters.count }
    }

    /// Waits for a place; give it back with ``leave()``.
    package func enter() async throws {
        // With a free place and nobody waiting, it is taken at once, with no continuation.
        let waiting = state.withLock { state -> UInt64? in
            if state.free > 0, state.waiters.isEmpty {
                state.free -= 1
                return nil
            }
            state.issued += 1
            return state.issued
        }
        guard let id = waiting else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancellation is read under the lock: a cancel that came before the waiter was
                // queued is seen here, one that comes after finds it queued.
                let answer = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.free > 0, state.waiters.isEmpty {
                        state.free -= 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Gives a place back: to the first waiter, if any.
    package func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Runs `body` inside the gate.
    package func inside<T>(_ body: () async throws -> T) async throws -> T {
        try await enter()
        defer { leave() }
        return try await body()
    }
}
