import Hummingbird
import PreviewStore
import NIOCore
import Synchronization

/// Notices when a client has gone: its connection closed, or it closed its side of it. A handler
/// in every connection's pipeline, so a route can skip work nobody will receive (a preview render
/// for a client that disconnected while waiting).
final class ClientPresence: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = ByteBuffer  // never unwrapped: reads pass through untouched

    private let gone = Atomic<Bool>(false)

    var clientIsGone: Bool { gone.load(ordering: .acquiring) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { gone.store(true, ordering: .releasing) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        gone.store(true, ordering: .releasing)
        context.fireChannelInactive()
    }

    /// Whether the client of `channel` has gone; false when the channel carries no such handler
    /// (requests driven in process, without a connection).
    static func hasGone(_ channel: (any Channel)?) async -> Bool {
        guard let channel, let presence = try? await channel.pipeline.handler(type: ClientPresence.self).get() else { return false }
        return presence.clientIsGone
    }
}

/// The request context of every route: Hummingbird's basics, and the connection the request came on.
package struct ServerContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The connection, to ask ``ClientPresence`` whether its client is still there.
    let channel: (any Channel)?
    /// The session of a browser signed in with the cookie (set by ``AccessMiddleware``).
    package var session: Session?
    /// An upload form's expected `csrf` field, when the cookie authorised it (checked by the upload).
    var formCSRFToken: String?
    /// What a signed URL granted, when one authorised the request (set by ``AccessMiddleware``).
    var signedGrant: SignedURLs.Grant?
    /// The device whose token authorised the request (set by ``AccessMiddleware``): it may use the
    /// download routes only.
    var device: DeviceRecord?
    /// The service token authorised the request, or the server has none (set by ``AccessMiddleware``):
    /// the document service, which speaks for many owners from one address, is paced per owner only.
    var viaServiceToken = false

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The client's IP address (what throttles and per-client limits count by); `local` for requests
    /// driven in process.
    package var clientAddress: String {
        channel?.remoteAddress?.ipAddress ?? "local"
    }

    /// The keys a pace counts this request by: its owner's, and its address's unless it comes from
    /// the document service.
    func paceKeys(owner: String?) -> [String] {
        ["owner:" + (owner ?? "*")] + (viaServiceToken ? [] : ["address:" + clientAddress])
    }
}
