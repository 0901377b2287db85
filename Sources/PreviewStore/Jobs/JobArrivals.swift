import PreviewCore

/// Tells the idle queue workers (and link fetchers) of this process that a job (or a link) was just
/// enqueued here, so an upload is picked up at once rather than at the workers' next poll (work
/// enqueued by other processes is still found by polling). A worker notes ``announcements`` before it looks for a job and
/// waits ``since`` that count: an announcement between its look and its wait is not missed.
public final class JobArrivals: Sendable {
    private struct Waiting {
        var continuations: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose time ran out before they were registered.
        var expired: Set<UInt64> = []
        var nextID: UInt64 = 0
        var announcements: UInt64 = 0
    }

    private let state = Locked(Waiting())

    public init() {}

    /// Announcements so far.
    public var announcements: UInt64 { state.withLock { $0.announcements } }

    /// Wakes every worker waiting now.
    public func announce() {
        let woken = state.withLock { state in
            state.announcements += 1
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        woken.forEach { $0.resume() }
    }

    /// Why a ``wait(since:upTo:)`` ended.
    public enum WaitOutcome: Sendable, Equatable {
        case announced, timedOut
    }

    /// Returns once there were more than `seen` announcements, or after `timeout`, whichever comes first.
    @discardableResult
    public func wait(since seen: UInt64, upTo timeout: Duration) async -> WaitOutcome {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.expire(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if state.expired.remove(id) != nil || state.announcements != seen { return true }
                state.continuations[id] = continuation
                return false
            }
            if ended { continuation.resume() }
        }
        timer.cancel()
        return state.withLock { state in
            state.expired.remove(id)
            return state.announcements != seen ? .announced : .timedOut
        }
    }

    private func expire(_ id: UInt64) {
        let continuation = state.withLock { state in
            guard let continuation = state.continuations.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil as CheckedContinuation<Void, Never>?
            }
            return continuation
        }
        continuation?.resume()
    }
}
