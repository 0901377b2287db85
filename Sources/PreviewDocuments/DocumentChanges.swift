import PreviewCore

/// Tells the requests that wait for a document to change (`GET /v1/documents/{id}?wait=`) that it
/// may have: this process's workers say so when they record a job's end or its progress; and those
/// that wait for an owner's events (`GET /v1/events?wait=`, under ``events``) that one may have been
/// kept. Changes made by other hosts are not heard here, so a waiter also reads again every ``recheck``.
package final class DocumentChanges: Sendable {
    /// How often a waiter reads its document again whatever it heard.
    package static let recheck: Duration = .seconds(2)
    /// What the readers of owners' events wait under (no document's id).
    package static let events = "owner-events"

    private struct Waiters {
        var next: UInt64 = 0
        var byDocument: [String: [UInt64: AsyncStream<Void>.Continuation]] = [:]
        var ended = false
    }

    private let waiters = Locked(Waiters())

    package init() {}

    /// Wakes whoever waits for document `id`.
    package func changed(_ id: String) {
        let woken = waiters.withLock { $0.byDocument.removeValue(forKey: id) } ?? [:]
        for continuation in woken.values { continuation.finish() }
    }

    /// Wakes every waiter, now and from now on: the server is shutting down, and a read that waits
    /// is answered at once with what the document is now.
    package func endWaits() {
        let woken = waiters.withLock { waiters in
            waiters.ended = true
            defer { waiters.byDocument = [:] }
            return waiters.byDocument.values.flatMap(\.values)
        }
        for continuation in woken { continuation.finish() }
    }

    /// Whether ``endWaits()`` was called: nothing waits any more.
    package var waitsEnded: Bool { waiters.withLock { $0.ended } }

    /// How many requests wait for a change (what a test waits for).
    package var waiting: Int { waiters.withLock { $0.byDocument.values.reduce(0) { $0 + $1.count } } }

    /// Long polling: `read()` again each time `key` may have changed (and every ``recheck``, for
    /// other hosts' changes) while `waiting(value)` holds, until `clock` reaches `deadline`, the
    /// waits end or the task is cancelled; the last value read.
    package func poll<Value>(
        _ key: String, from value: Value, until deadline: ContinuousClock.Instant, clock: any ServiceClock,
        while waiting: (Value) -> Bool, read: () async throws -> Value
    ) async throws -> Value {
        var value = value
        while waiting(value) && clock.instant < deadline && !waitsEnded && !Task.isCancelled {
            await next(of: key, until: min(deadline, clock.instant + Self.recheck), clock: clock)
            value = try await read()
        }
        return value
    }

    /// Returns once document `id` may have changed, or when `clock` reaches `deadline`.
    package func next(of id: String, until deadline: ContinuousClock.Instant, clock: any ServiceClock) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let key: UInt64? = waiters.withLock { waiters in
            guard !waiters.ended else { return nil }
            waiters.next += 1
            waiters.byDocument[id, default: [:]][waiters.next] = continuation
            return waiters.next
        }
        guard let key else { return }
        defer {
            waiters.withLock { waiters in
                waiters.byDocument[id]?[key] = nil
                if waiters.byDocument[id]?.isEmpty == true { waiters.byDocument[id] = nil }
            }
            continuation.finish()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in stream {} }
            group.addTask { try? await clock.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }
}
