import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS
import PreviewCore

/// A server's child channel (`base`: HTTP/1.1, or TLS with HTTP/2 by ALPN) with a budget in front:
/// a connection past the ``ConnectionBudget`` is shed before `base` sees a byte of it (plain HTTP
/// is told `503` with `Retry-After`; a TLS client, whose handshake has not begun, sees the
/// connection close), and a TLS connection whose handshake is not done within `handshakeTimeout`
/// is closed: the idle timeout starts only once a request can be read, so without this a client
/// that never sends its ClientHello would hold its descriptor for ever. A TLS connection (HTTP/2's
/// above all) on which nothing moves for twice the idle timeout is closed too.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let budget: ConnectionBudget
    /// Set for TLS: how long a handshake may take.
    let handshakeTimeout: TimeAmount?
    /// How long a connection may be idle (for TLS, whose HTTP/2 connections need a hard limit of their own).
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let admission = budget.admit(address) { channel.close(promise: nil) }
        if case let .success(place) = admission { channel.closeFuture.whenComplete { _ in budget.release(place) } }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            if case let .failure(refusal) = admission {
                // First in the pipeline: what the client sends never reaches `base`, which sees the close.
                logger.debug("connection shed", metadata: ["preview.client": "\(address)", "reason": "\(refusal.rawValue)"])
                try channel.pipeline.syncOperations.addHandler(ShedConnection(answer: handshakeTimeout == nil), position: .first)
            } else if let handshakeTimeout {
                let tls = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
                try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: handshakeTimeout), position: .after(tls))
                // HTTP/2's own idle close waits for the client to answer a ping, which a silent one
                // never does: a connection on which nothing is read or written for twice the idle
                // timeout, and longer than a long poll waits, is closed (a response being sent writes).
                let silence = max(idleTimeout * 2, .seconds(Int64(DocumentsController.maxWaitSeconds)) + idleTimeout)
                try channel.pipeline.syncOperations.addHandlers([IdleStateHandler(allTimeout: silence), CloseWhenIdle()], position: .after(tls))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes its connection unless the TLS handshake completes within `timeout`; gone once it has.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case .handshakeCompleted = event as? TLSUserEvent {
            timer?.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}

/// Closes its connection when the ``IdleStateHandler`` before it says nothing was read or written in its time.
final class CloseWhenIdle: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .all? = event as? IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// The whole life of a shed connection: with `answer`, a `503` with `Retry-After` once it is
/// active; then it is closed, and nothing it sends is read.
final class ShedConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let answer: Bool

    init(answer: Bool) {
        self.answer = answer
    }

    static let response: ByteBuffer = {
        let body =
            (try? StableJSON.encode(ErrorEnvelope(PreviewError(.unavailable, "The server has no room for another connection.")), keys: .snakeCase))
            ?? []
        var response = ByteBuffer(
            string: "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        response.writeBytes(body)
        return response
    }()

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { shed(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        shed(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func shed(_ context: ChannelHandlerContext) {
        let channel = context.channel
        guard answer else { return channel.close(promise: nil) }
        context.writeAndFlush(NIOAny(Self.response)).whenComplete { _ in channel.close(promise: nil) }
    }
}
