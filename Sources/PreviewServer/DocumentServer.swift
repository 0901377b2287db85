import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewStore
import ServiceLifecycle

/// The routes of DESIGN §8 over a store, a pipeline and a queue. `build()` gives a Hummingbird
/// application; tests drive the same router in process.
public struct DocumentServer: Sendable {
    public let pipeline: DocumentPipeline
    public let queue: any JobQueue
    public let settings: ServerSettings
    let logger: Logger
    /// Bounds the preview renders in flight, overall, per owner and per document.
    let renders: RenderGate
    /// Bounds the uploads being received (connections, staging files, disk writes), overall and per client.
    let uploads: UploadSlots
    /// The token, the sessions and the sign-in throttle; nil when the server is open.
    let access: Access?
    /// Whether the server is shutting down.
    let drain = Drain()
    /// Threads for the requests' reads (documents, statistics, stored previews), apart from the
    /// uploads' writes (fsync, rows: writes waiting on a busy database cannot take every thread, or
    /// database connection, that reads need) and from renders.
    let offload: Offload
    /// How many jobs wait, read at most once a second rather than counted for every upload.
    let queueDepth = QueueDepth()
    /// Told of every upload enqueued, so this process's idle workers take it at once.
    let arrivals: JobArrivals?
    /// Full disks and database outages met by requests, told once per burst.
    let faults = FaultBurst(place: "requests")
    /// The store's figures for /metrics, never waited on for long.
    let gauges = StoreGauges()

    public init(pipeline: DocumentPipeline, queue: any JobQueue, settings: ServerSettings, arrivals: JobArrivals? = nil, logger: Logger) {
        self.pipeline = pipeline
        self.queue = queue
        self.arrivals = arrivals
        self.settings = settings
        self.logger = logger
        renders = RenderGate(total: settings.maxRendersInFlight, perOwner: settings.maxRendersPerOwner,
                             perDocument: settings.maxRendersPerDocument)
        uploads = UploadSlots(total: settings.maxUploadsInFlight, perClient: settings.maxUploadsPerClient,
                              minimumBytesPerSecond: settings.minimumUploadBytesPerSecond)
        access = settings.token.map(Access.init(token:))
        // A render past the gate always finds a thread: one per render in flight, and one for a repair.
        offload = Offload(reads: settings.blockingThreads, writes: settings.blockingThreads, renders: settings.maxRendersInFlight + 1)
        _ = ServerMetrics.registry
    }

    var store: Store { pipeline.store }

    /// The router with every route and the auth middleware. Other methods on a known path get 405
    /// with `Allow`, not 404.
    public func router() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: FaultMiddleware(faults: faults))
        router.add(middleware: DrainMiddleware(drain: drain))
        router.add(middleware: AccessMiddleware(access: access, hosts: HostCheck(publicHosts: settings.publicHosts), logger: logger))
        let routes = RouteTable(router: router)
        routes.add(.get, "/healthz") { _, _ in "ok\n" }
        routes.add(.get, SignInPage.path) { request, _ in
            SignInPage.response(status: .ok, returnTo: request.uri.queryParameters.get("return") ?? "/")
        }
        routes.add(.post, SignInPage.path) { request, context in
            try await SignInPage.signIn(request, context: context, access: access, logger: logger)
        }
        routes.add(.post, SignInPage.signOutPath) { request, _ in SignInPage.signOut(request, access: access) }
        // Whatever reads the database or the disk runs on `blocking`, never on the cooperative pool.
        routes.add(.get, "/metrics") { _, context in await metrics(logger: context.logger) }
        routes.add(.get, "/") { request, context in
            let session = context.session
            return try await offload.run(.reads) { try HomePage.response(server: self, request: request, session: session) }
        }
        routes.add(.get, "/ui/documents/:id") { _, context in
            let (id, session) = (try context.parameters.require("id"), context.session)
            return try await offload.run(.reads) { try ViewerPage.response(server: self, id: id, session: session) }
        }
        routes.add(.get, "/ui/documents/:id/delete") { _, context in
            let (id, session) = (try context.parameters.require("id"), context.session)
            return try await offload.run(.reads) { try ViewerPage.deleteConfirmation(server: self, id: id, session: session) }
        }
        routes.add(.post, "/ui/documents/:id/delete") { request, context in
            let deletion = try await delete(context.parameters.require("id"), request: request, logger: context.logger)
            return Response(status: .seeOther, headers: [.location: HomePage.path(owner: deletion.versions.first?.owner ?? "")])
        }
        routes.add(.post, "/ui/documents/:id/restore") { request, context in
            let restored = try await restore(context.parameters.require("id"), request: request)
            return Response(status: .seeOther, headers: [.location: "/ui/documents/\(restored.document.id)"])
        }
        routes.add(.post, "/ui/upload") { request, context in
            let accepted = try await upload(request, context: context)
            return Response(status: .seeOther, headers: [.location: HomePage.path(owner: accepted.owner)])
        }
        routes.add(.post, "/v1/documents") { request, context in
            let accepted = try await upload(request, context: context)
            return try JSON.response(accepted.body, status: .accepted, headers: [.location: "/v1/documents/\(accepted.body.documentID)"])
        }
        routes.add(.get, "/v1/documents") { request, _ in try await list(request) }
        routes.add(.get, "/v1/documents/:id") { _, context in
            let id = try context.parameters.require("id")
            return try await offload.run(.reads) { try document(id) }
        }
        routes.add(.patch, "/v1/documents/:id") { request, context in try await relabel(context.parameters.require("id"), request: request) }
        routes.add(.delete, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            return try JSON.response(DeletionView(try await delete(id, request: request, logger: context.logger), id: id))
        }
        routes.add(.get, "/v1/documents/:id/versions") { _, context in try await versions(context.parameters.require("id")) }
        routes.add(.post, "/v1/documents/:id/restore") { request, context in
            let (restored, _) = try await restore(context.parameters.require("id"), request: request)
            return try JSON.response(DocumentView(restored))
        }
        for method in [HTTPRequest.Method.get, .head] {
            routes.add(method, "/v1/documents/:id/content") { request, context in
                try await content(context.parameters.require("id"), request: request, channel: context.channel)
            }
        }
        routes.add(.get, "/v1/documents/:id/preview") { request, context in
            try await preview(context.parameters.require("id"), request: request, context: context)
        }
        routes.add(.get, "/v1/stats") { request, _ in
            let owner = request.uri.queryParameters.get("owner")
            return try await offload.run(.reads) { try JSON.response(try store.index.statistics(owner: owner)) }
        }
        routes.refuseOtherMethods()
        return router
    }

    /// The service that starts this server's drain on shutdown; list it after ``application(services:)``.
    public var drainService: DrainService { DrainService(drain: drain, uploads: uploads, grace: settings.grace) }

    /// A Hummingbird application listening on the configured address.
    public func application(services: [any Service] = []) -> some ApplicationProtocol {
        let idleTimeout = TimeAmount(settings.idleTimeout)
        return Application(router: router(),
                           server: .http1(configuration: .init(additionalChannelHandlers: [ClientPresence(), WriteStall(timeout: idleTimeout)],
                                                               idleTimeout: idleTimeout)),
                           configuration: .init(address: .hostname(settings.host, port: settings.port)), services: services, logger: logger)
    }

    // MARK: Metrics

    func metrics(logger: Logger) async -> Response {
        await gauges.refresh(queue: queue, index: store.index, offload: offload, faults: faults, logger: logger)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                        body: .init(byteBuffer: ByteBuffer(bytes: ServerMetrics.registry.emitToBuffer())))
    }
}
