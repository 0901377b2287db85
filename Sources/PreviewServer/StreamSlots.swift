import NIOCore
import PreviewCore

/// Stored files (originals, renditions, a ladder's media) being sent, overall and on one
/// connection: each holds a descriptor, or an object store's connection, and a few chunks of
/// buffer until its client has read it. Past either bound a stream waits its turn, in order of
/// arrival, holding neither; so an HTTP/2 connection's hundred streams whose client never opens its
/// window hold ``perConnection`` files, not a hundred.
final class StreamSlots: Sendable {
    private struct Waiter {
        let id: UInt64
        let connection: ObjectIdentifier?
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var total = 0
        var byConnection: [ObjectIdentifier: Int] = [:]
        var waiters = WaitingLine<Waiter>()

        func hasRoom(for connection: ObjectIdentifier?, total limit: Int, perConnection: Int) -> Bool {
            total < limit && connection.map { byConnection[$0, default: 0] < perConnection } != false
        }

        mutating func take(_ connection: ObjectIdentifier?) {
            total += 1
            if let connection { byConnection[connection, default: 0] += 1 }
        }

        mutating func give(_ connection: ObjectIdentifier?) {
            total -= 1
            if let connection { byConnection.decrement(connection) }
        }
    }

    let total: Int
    let perConnection: Int
    private let state = Locked(State())

    init(total: Int, perConnection: Int) {
        self.total = max(1, total)
        self.perConnection = max(1, perConnection)
    }

    /// The connection a request came on: an HTTP/2 stream's parent, else its own channel (nil in process).
    static func connection(of channel: (any Channel)?) -> ObjectIdentifier? {
        guard let channel else { return nil }
        if let parent = channel.parent, parent.parent != nil { return ObjectIdentifier(parent) }
        return ObjectIdentifier(channel)
    }

    /// Runs `body` in a slot of `connection`'s, once one is free.
    func withSlot<T: Sendable>(on connection: ObjectIdentifier?, _ body: () async throws -> T) async throws -> T {
        try await acquire(connection)
        defer { release(connection) }
        return try await body()
    }

    private func acquire(_ connection: ObjectIdentifier?) async throws {
        let id = state.withLock { $0.waiters.ticket() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now = state.withLock { state -> Bool in
                    if state.waiters.isEmpty, state.hasRoom(for: connection, total: total, perConnection: perConnection) {
                        state.take(connection)
                        return true
                    }
                    state.waiters.append(Waiter(id: id, connection: connection, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.remove { $0.id == id } }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release(_ connection: ObjectIdentifier?) {
        let (total, perConnection) = (total, perConnection)
        let woken = state.withLock { state -> [Waiter] in
            state.give(connection)
            // The line is taken out of the state while the closures below read the state.
            var line = state.waiters
            let woken = line.admit(
                while: { state.total < total },
                fits: { state.hasRoom(for: $0.connection, total: total, perConnection: perConnection) },
                take: { state.take($0.connection) })
            state.waiters = line
            return woken
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}
