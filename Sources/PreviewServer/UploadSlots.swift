import NIOCore
import PreviewCore

/// Admission for uploads being received: at most ``total`` at once and ``perClient`` from one client
/// address. Slow clients hold only their own slots: when the client's share is taken, a new upload
/// takes the slot of one of that client's that has been arriving slower than ``minimumBytesPerSecond``
/// for ``grace`` or longer; when every slot is taken, the slowest of anyone's arriving slower than
/// ``contendedBytesPerSecond`` (a trickle just above the floor holds no slot that others wait for).
/// The loser's connection is closed: a one-shot upload's staged bytes are removed, nothing
/// acknowledged, so an honest client retries; a resumable one keeps what arrived and resumes. A
/// slot is identified by the `Ticket` ``enter(client:channel:)`` returns.
final class UploadSlots: Sendable {
    let total: Int
    let perClient: Int
    /// Below this average an upload may lose its slot to a new one (and, over a whole window, its
    /// connection: ``UploadReceiver`` enforces the rate as it reads).
    let minimumBytesPerSecond: Int
    /// Below this average, when every slot is taken, an upload may lose its slot to a new one.
    let contendedBytesPerSecond: Int
    let grace: Duration

    struct Ticket: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct Upload {
        var client: String
        var channel: (any Channel)?
        var started: ContinuousClock.Instant
        var bytes = 0
    }

    private struct State {
        var next: UInt64 = 0
        var uploads: [UInt64: Upload] = [:]
    }

    private let state = Locked(State())

    init(total: Int, perClient: Int, minimumBytesPerSecond: Int = 1024, contendedBytesPerSecond: Int = 32 * 1024, grace: Duration = .seconds(2)) {
        self.total = max(1, total)
        self.perClient = max(1, perClient)
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.contendedBytesPerSecond = max(minimumBytesPerSecond, contendedBytesPerSecond)
        self.grace = grace
    }

    /// A slot for an upload from `client` on `channel`, or nil (answer 429).
    func enter(client: String, channel: (any Channel)?, now: ContinuousClock.Instant = .now) -> Ticket? {
        let (ticket, evicted): (Ticket?, (any Channel)?) = state.withLock { state in
            var evicted: (any Channel)?
            // Over the client's share, one of its own slow uploads makes room; over the total, anyone's.
            let clientFull = state.uploads.values.count(where: { $0.client == client }) >= perClient
            if clientFull || state.uploads.count >= total {
                let floor = clientFull ? minimumBytesPerSecond : contendedBytesPerSecond
                guard
                    let slowest = state.uploads.filter({ (!clientFull || $0.value.client == client) && isSlow($0.value, below: floor, now: now) })
                        .min(by: { rate($0.value, now: now) < rate($1.value, now: now) })
                else { return (nil, nil) }
                evicted = slowest.value.channel
                state.uploads[slowest.key] = nil
            }
            state.next += 1
            state.uploads[state.next] = Upload(client: client, channel: channel, started: now)
            return (Ticket(id: state.next), evicted)
        }
        evicted?.close(promise: nil)
        return ticket
    }

    /// Counts bytes received for `ticket`; false when the upload lost its slot to a faster one.
    func received(_ bytes: Int, for ticket: Ticket) -> Bool {
        state.withLock { state in
            guard state.uploads[ticket.id] != nil else { return false }
            state.uploads[ticket.id]!.bytes += bytes
            return true
        }
    }

    /// Closes the connections of every upload still arriving (the end of a shutdown's grace).
    func closeAll() {
        let channels = state.withLock { state in state.uploads.values.compactMap(\.channel) }
        channels.forEach { $0.close(promise: nil) }
    }

    func leave(_ ticket: Ticket) {
        _ = state.withLock { $0.uploads.removeValue(forKey: ticket.id) }
    }

    private func isSlow(_ upload: Upload, below floor: Int, now: ContinuousClock.Instant) -> Bool {
        upload.started.duration(to: now) >= grace && rate(upload, now: now) < Double(floor)
    }

    private func rate(_ upload: Upload, now: ContinuousClock.Instant) -> Double {
        let seconds = Double(upload.started.duration(to: now).components.seconds) + 1
        return Double(upload.bytes) / seconds
    }
}
