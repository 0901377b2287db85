import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore
import ServiceLifecycle

/// The HTTP front of DESIGN §8 over a ``DocumentService``: the state its controllers share (the
/// bounds on renders and uploads, the offload lanes, access, the drain) and the router that puts
/// them together. ``buildApplication(_:services:)`` serves it; tests drive the same application in process.
package struct DocumentServer: Sendable {
    package let documents: DocumentService
    package let settings: ServerSettings
    package let logger: Logger
    /// Bounds the preview renders in flight, overall, per owner and per document.
    let renders: RenderGate
    /// Stores previews rendered for requests once they are answered.
    let keeping: PreviewKeeping
    /// Bounds the uploads being received (connections, staging files, disk writes), overall and per client.
    let uploads: UploadSlots
    /// The token, the sessions and the sign-in throttle; nil when the server is open.
    package let access: Access?
    /// Signs and checks URLs that need no token: with the configured keys, else with a key of this
    /// process (for share pages' media only: apps get signed URLs from a configured key).
    package let signed: SignedURLs
    /// Whether the server is shutting down.
    let drain = Drain()
    /// The service's lanes for blocking work: streamed files read and hashed, share passwords checked.
    package var offload: Offload { documents.offload }
    /// How many jobs wait, read at most once a second rather than counted for every upload.
    let queueDepth = QueueDepth()
    /// Full disks and database outages met by requests, told once per burst.
    let faults = FaultBurst(place: "requests")
    /// The store's figures for /metrics, never waited on for long.
    let gauges = StoreGauges()
    /// Bounds the connections held, overall and per client address.
    let connections: ConnectionBudget
    /// Bounds the stored files being sent, overall and per connection.
    let streams: StreamSlots
    /// How every upload request is let in and received (a slot, the queue's room, the pace rules).
    package let intake: UploadIntake
    /// The pages for people, mounted beside the API (PreviewWeb's); none for an API alone.
    let pages: (any PageRoutes)?
    /// Links' cards; nil where this server makes none (the link routes are then not served).
    package let links: LinkPreviews?

    /// A server of `documents`, with `pages` beside its API, and `links`' cards.
    package init(documents: DocumentService, settings: ServerSettings, logger: Logger, pages: (any PageRoutes)?, links: LinkPreviews? = nil) {
        self.documents = documents
        self.settings = settings
        self.logger = logger
        renders = RenderGate(
            total: settings.maxRendersInFlight, perRequester: settings.maxRendersPerOwner,
            perDocument: settings.maxRendersPerDocument)
        uploads = UploadSlots(
            total: settings.maxUploadsInFlight, perClient: settings.maxUploadsPerClient,
            minimumBytesPerSecond: settings.minimumUploadBytesPerSecond)
        access = settings.token.map {
            Access(
                token: $0, servesTLS: settings.tls != nil, guessable: settings.guessableToken, trusted: settings.trustedAddresses,
                clock: documents.clock)
        }
        signed = SignedURLs(keys: settings.signingKeys ?? .ephemeral(), clock: documents.clock)
        let shares = settings.maxConnections == nil || settings.maxStreams == nil ? DescriptorBudget.shares(of: DescriptorBudget.raisedLimit()) : nil
        connections = ConnectionBudget(total: settings.maxConnections ?? shares?.connections ?? 1, perClient: settings.maxConnectionsPerClient)
        streams = StreamSlots(total: settings.maxStreams ?? shares?.streams ?? 1, perConnection: settings.maxStreamsPerConnection)
        intake = UploadIntake(documents: documents, settings: settings, uploads: uploads, queueDepth: queueDepth)
        self.pages = pages
        self.links = links
        keeping = PreviewKeeping(documents: documents, delay: settings.keepDelay, logger: logger)
        _ = ServerMetrics.registry
    }

    /// What a streamed original reads and sends at a time (``CheckedBlobBytes``); `serve` maps buffers of this
    /// size and more straight from the kernel (see `ServeCommand`), so their pages go back when they are freed.
    package static var chunkBytes: Int { CheckedBlobBytes.chunkBytes }

    /// The router: the fault, drain and access middleware, then each controller's routes. Other
    /// methods on a known path get 405 with `Allow`, not 404.
    package func buildRouter() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: DownloadEnvelopeMiddleware())
        router.add(middleware: FaultMiddleware(faults: faults))
        router.add(middleware: DrainMiddleware(drain: drain))
        router.add(
            middleware: AccessMiddleware(
                access: access, signed: signed, shares: ShareGate(documents: documents),
                devices: DeviceGate(documents: documents),
                hosts: HostCheck(publicHosts: settings.publicHosts), logger: logger))
        let routes = RouteTable(router: router)
        OperationsController(documents: documents, gauges: gauges, faults: faults).register(on: routes)
        UploadsController(documents: documents, settings: settings, intake: intake).register(on: routes)
        DocumentsController(documents: documents).register(on: routes)
        ClipsController(documents: documents, intake: intake).register(on: routes)
        PreviewsController(documents: documents, settings: settings, renders: renders, keeping: keeping).register(on: routes)
        TextController(documents: documents).register(on: routes)
        ContentController(documents: documents, offload: offload, signed: signed, streams: streams, renders: renders, logger: logger)
            .register(on: routes)
        IIIFController(documents: documents, settings: settings, renders: renders).register(on: routes)
        SignedURLsController(documents: documents, signed: settings.signingKeys == nil ? nil : signed).register(on: routes)
        SharesController(documents: documents, settings: settings).register(on: routes)
        EventsController(documents: documents).register(on: routes)
        SchoolsController(documents: documents, settings: settings).register(on: routes)
        DownloadsController(documents: documents, signed: signed).register(on: routes)
        if let links { LinksController(links: links, signed: signed, clock: documents.clock).register(on: routes) }
        pages?.register(on: routes, server: self)
        routes.refuseOtherMethods()
        return router
    }

    /// The `104` that announces a resumable upload, sent to requests that will be let in: a host
    /// this server answers to, and the token or a signed-in session when it has one.
    var uploadAnnouncement: UploadAnnouncement {
        let (access, hosts, documents) = (access, HostCheck(publicHosts: settings.publicHosts), documents)
        return UploadAnnouncement(
            spoken: settings.uploadDraftLatest ? ResumableDraft.stable.union(ResumableDraft.latest) : ResumableDraft.stable,
            scheme: settings.tls == nil ? "http" : "https",
            admits: { request in
                guard hosts.accepts(request) else { return false }
                guard let access else { return true }
                switch access.presented(by: request) {
                // A weak token is let in only where the throttle sees the address: no 104 tells a guesser it was right.
                case .serviceToken: return !access.guessable
                case .session: return true
                case .otherToken, .nothing: return false
                }
            },
            limits: { draft in
                draft.limits(documents.uploadPolicy, maxFileBytes: documents.limits.maxFileBytes, secondsLeft: Int(documents.uploadPolicy.lifetime))
            })
    }

    /// The service that starts this server's drain on shutdown; list it after the application.
    package var drainService: DrainService {
        DrainService(drain: drain, uploads: uploads, keeping: keeping, changes: documents.changes, grace: settings.grace)
    }
}

/// The HTTP application of `server`, listening on its configured address, with `services` run
/// beside it: what `serve` runs and what the tests drive (the Hummingbird template's shape). With
/// TLS, HTTP/2 is offered by ALPN beside HTTP/1.1. Every connection passes the server's
/// ``ConnectionBudget`` first, and a TLS one must finish its handshake in time (``GuardedChildChannel``).
package func buildApplication(_ server: DocumentServer, services: [any Service] = []) throws -> some ApplicationProtocol {
    let settings = server.settings
    let idleTimeout = TimeAmount(settings.idleTimeout)
    let http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ClientPresence(), WriteStall(timeout: idleTimeout)], idleTimeout: idleTimeout)
    let budget = server.connections
    let announcement = server.uploadAnnouncement
    let builder = HTTPServerBuilder { responder in
        let responder = announcement.wrap(responder)
        if let tls = settings.tls {
            let http2 = try HTTP2UpgradeChannel(
                tlsConfiguration: tls, configuration: .init(idleTimeout: settings.idleTimeout, streamConfiguration: http1),
                responder: responder)
            return GuardedChildChannel(base: http2, budget: budget, handshakeTimeout: TimeAmount(settings.handshakeTimeout), idleTimeout: idleTimeout)
        }
        return GuardedChildChannel(
            base: HTTP1Channel(responder: responder, configuration: http1), budget: budget, handshakeTimeout: nil,
            idleTimeout: idleTimeout)
    }
    return Application(
        router: server.buildRouter(), server: builder,
        configuration: .init(address: .hostname(server.settings.host, port: server.settings.port)),
        services: services, logger: server.logger)
}
