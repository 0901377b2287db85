import NIOCore
import PreviewCore

/// A write timeout and back-pressure for streamed responses, in every connection's pipeline:
/// - a connection whose client stops reading (its socket stays unwritable) for the idle timeout is
///   closed;
/// - a response stream asks for room before it reads each chunk (``waitForRoom(_:chunksSent:)``) and
///   gets it once all but ``chunksInFlight`` of the chunks it handed on were written to the socket.
///   Counted from the writes' completions on the event loop, so a busy event loop cannot let the stream
///   run ahead: a client that does not read holds a few chunks, not the file.
final class WriteStall: ChannelDuplexHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = ByteBuffer  // never unwrapped: reads and writes pass through untouched
    typealias OutboundIn = ByteBuffer

    /// Chunks a stream may have handed on beyond those written to the socket.
    static let chunksInFlight = 4

    private struct State {
        var written = 0
        var waiters: [(needed: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var timer: Scheduled<Void>?
        var closed = false
    }

    private let timeout: TimeAmount
    private let state = Locked(State())

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let promise = promise ?? context.eventLoop.makePromise()
        promise.futureResult.whenSuccess { [self] in
            let ready = state.withLock { state in
                state.written += 1
                let ready = state.waiters.filter { $0.needed <= state.written }
                state.waiters.removeAll { $0.needed <= state.written }
                return ready
            }
            ready.forEach { $0.continuation.resume(returning: true) }
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let channel = context.channel
        let timer =
            channel.isWritable
            ? nil
            : context.eventLoop.scheduleTask(in: timeout) {
                if !channel.isWritable { channel.close(promise: nil) }
            }
        state.withLock { state in
            state.timer?.cancel()
            state.timer = timer
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let waiters = state.withLock { state in
            state.closed = true
            state.timer?.cancel()
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.continuation.resume(returning: false) }
        context.fireChannelInactive()
    }

    /// Writes completed on this connection so far (a stream's starting point).
    var writesCompleted: Int { state.withLock { $0.written } }

    /// Returns once all but ``chunksInFlight`` of the `sent` chunks a stream handed on since
    /// `start` (``writesCompleted`` when it began) were written: true, or false when the connection
    /// closed (the client went, or stopped reading for the timeout).
    func waitForRoom(since start: Int, chunksSent sent: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let needed = start + sent - Self.chunksInFlight
            let answer: Bool? = state.withLock { state in
                if state.closed { return false }
                if state.written >= needed { return true }
                state.waiters.append((needed, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// The connection's handler; nil for requests driven without a connection.
    static func of(_ channel: (any Channel)?) async -> WriteStall? {
        guard let channel else { return nil }
        return try? await channel.pipeline.handler(type: WriteStall.self).get()
    }
}
