import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewQueue
import PreviewStore
import ServiceLifecycle

/// Settings of the HTTP front (DESIGN §8).
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// When set, every route but /healthz needs `Authorization: Bearer <token>`.
    public var token: String?
    /// Uploads are refused with 429 while more jobs than this wait.
    public var maxQueuedJobs = 10_000
    /// A connection that sends nothing for this long is closed, also in the middle of a request
    /// body: a stalled upload cannot hold its connection and staging file for ever.
    public var idleTimeout: Duration = .seconds(30)
    /// On-demand previews being rendered at once (stored ones do not count); more get 429 with `Retry-After`.
    public var maxRendersInFlight = 8
    /// On-demand renders of one owner's documents at once, and of one document; more wait their turn.
    public var maxRendersPerOwner = 1
    public var maxRendersPerDocument = 1
    /// Uploads being received at once, and from one client address; more get 429 with `Retry-After`.
    public var maxUploadsInFlight = 16
    public var maxUploadsPerClient = 4
    /// The slowest an upload may arrive (over each 30 s); slower ones are cut off, and lose their slot
    /// to a new upload when every slot is taken.
    public var minimumUploadBytesPerSecond = 1024
    /// Host names the server answers to besides IP addresses and loopback names (DNS rebinding).
    public var publicHosts: [String] = []
    /// Threads for the database and file-system reads of requests, and as many for uploads' writes.
    public var blockingThreads = 4
    /// An upload's whole body must arrive within this time (the idle timeout bounds each pause).
    public var uploadTimeout: Duration = .seconds(600)
    /// After SIGTERM, how long uploads still arriving may take before they are cut off.
    public var grace: Duration = .seconds(30)
    /// Tests only (`DOCPREVIEW_TEST_HOOKS=1`): a preview waits 0.5 s before checking its client is
    /// still there, so a test can disconnect first.
    public var testHooks = false

    public init() {}
}

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
    let figures = StoreFigures()

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
            let (restored, job) = try await restore(context.parameters.require("id"), request: request)
            return try JSON.response(DocumentView(restored, status: job.status))
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

    // MARK: Upload

    struct Accepted {
        var body: AcceptedBody
        var owner: String
    }

    struct AcceptedBody: Encodable {
        var status: JobRecord.Status
        var documentID: String
        var jobID: Int64
        var sha256: String

        enum CodingKeys: String, CodingKey {
            case status, sha256
            case documentID = "document_id"
            case jobID = "job_id"
        }
    }

    /// Streams the body into the store's tmp/, validates it like the CLI, publishes the blob, then
    /// commits the document and its job together. Only then is the upload acknowledged.
    func upload(_ request: Request, context: ServerContext) async throws -> Accepted {
        guard let ticket = uploads.enter(client: context.clientAddress, channel: context.channel) else {
            throw ErrorResponse(PreviewError(.queueFull, "Too many uploads are arriving right now; try again shortly."),
                                headers: [.retryAfter: "5"])
        }
        defer { uploads.leave(ticket) }
        let limit = pipeline.configuration.limits.maxFileBytes
        let (queue, queueDepth) = (queue, queueDepth)
        let queued = try await offload.run(.reads) { try queueDepth.current { try queue.counts()[.queued, default: 0] } }
        if queued > settings.maxQueuedJobs {
            throw ErrorResponse(PreviewError(.queueFull, "Too many documents are waiting; try again later."), headers: [.retryAfter: "30"])
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "too_large")]).increment()
            throw UploadReceiver.tooLarge(limit)
        }
        let writer = try BlobWriter(storage: store.blobs)
        var receiver = UploadReceiver(deadline: .now + settings.uploadTimeout)
        receiver.minimumBytesPerSecond = settings.minimumUploadBytesPerSecond
        let uploads = uploads
        receiver.progress = { bytes in
            guard uploads.received(bytes, for: ticket) else {
                throw RequestRefusal(status: .requestTimeout, code: "timeout", message: "The upload arrived too slowly; try again.")
            }
        }
        let query = request.uri.queryParameters
        for name in ["type", "filename", "owner", "title"] { receiver.fields[name] = query.get(name) }
        try await receiver.receive(request.body, contentType: request.headers[.contentType], into: writer, limit: limit)
        try writer.finish()
        if let expected = context.formCSRFToken {
            guard let presented = receiver.formFields["csrf"], Credentials.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)) else {
                throw ErrorResponse(.forbidden, "This form has expired; reload the page and try again.")
            }
        }

        let fields = receiver.fields
        let type: DocumentType?
        if let id = fields["type"], !id.isEmpty {
            guard let known = pipeline.configuration.rules.type(id: id) else {
                throw BadRequest(message: "unknown document type \(id)")
            }
            type = known
        } else {
            type = nil
        }
        // The name only lends its extension and a display name; it is never a path.
        let filename = (fields["filename"] ?? receiver.fileName ?? "upload").split(separator: "/").last.map(String.init) ?? "upload"
        // Labels are shown and indexed, never interpreted: control characters (NUL among them, which
        // PostgreSQL cannot store in text) have no place in them.
        for (name, value) in [("owner", fields["owner"]), ("title", fields["title"]), ("filename", filename)]
        where value?.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) == true {
            throw BadRequest(message: "\(name) must not contain control characters")
        }
        let (pipeline, store) = (pipeline, store)
        let (owner, title) = (fields["owner"] ?? "", fields["title"].flatMap { $0.isEmpty ? nil : $0 } ?? filename)
        // Validation reads the staged file, publishing fsyncs it, the rows commit: off the cooperative pool.
        let stored = try await offload.run(.writes) { () throws -> Result<(DocumentRecord, JobRecord), PreviewError> in
            let verdict = Validator(configuration: pipeline.configuration)
                .validate(try ByteProbe(contentsOf: writer.stagedURL), fileName: filename, declaredType: type)
            if let refusal = verdict.refusal { return .failure(refusal) }
            let hash = try writer.finish()
            let hasRenderer = pipeline.renderers.renderer(for: verdict.kind) != nil
            let record = DocumentRecord(
                id: UUID().uuidString.lowercased(), owner: owner, type: type?.id ?? "", title: title, filename: filename, sha256: hash,
                kind: verdict.kind.rawValue, mime: verdict.kind.mime, size: writer.size, facts: MediaFacts(), version: 0,
                previewStatus: hasRenderer ? PreviewStatus.pending : PreviewStatus.noPreview, createdAt: Date())
            // Published and recorded under the reference lock: `gc` cannot remove the blob (new, or
            // the same bytes stored long ago) before the row names it.
            return .success(try store.blobs.whileReferencing(exclusive: false) {
                _ = try writer.publish(as: .original)
                return try queue.enqueue(record)
            })
        }
        let (document, job): (DocumentRecord, JobRecord)
        switch stored {
        case let .success(stored): (document, job) = stored
        case let .failure(refusal):
            Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "refused")]).increment()
            context.logger.info("upload refused", metadata: ["preview.code": "\(refusal.code)"])
            throw ErrorResponse(refusal)
        }
        let hash = document.sha256
        queueDepth.noteEnqueued()
        arrivals?.announce()
        Counter(label: "docpreview_uploads_total", dimensions: [("outcome", "accepted")]).increment()
        // context.logger carries Hummingbird's request id.
        context.logger.info("upload accepted", metadata: ["preview.document": "\(document.id)", "preview.job": "\(job.id ?? 0)",
                                                          "preview.sha256": "\(hash)"])
        return Accepted(body: AcceptedBody(status: job.status, documentID: document.id, jobID: job.id ?? 0, sha256: hash.hex),
                        owner: document.owner)
    }

    // MARK: Documents and previews

    func documentStatus(_ document: DocumentRecord) throws -> JobRecord.Status {
        status(of: document, job: try queue.latestJob(documentID: document.id))
    }

    /// Document `id` and its status, read in that order: a job's outcome is recorded after its
    /// document's, so a finished job is never shown beside the document as it was before (a failed
    /// status without its error).
    func documentAndStatus(id: String) throws -> (document: DocumentRecord, status: JobRecord.Status)? {
        let job = try queue.latestJob(documentID: id)
        guard let document = try store.index.document(id: id) else { return nil }
        return (document, status(of: document, job: job))
    }

    /// The job's status; for documents without a job (ingested by the CLI), what their preview says.
    private func status(of document: DocumentRecord, job: JobRecord?) -> JobRecord.Status {
        if let job { return job.status }
        switch document.previewStatus {
        case .failed: return .failed
        case .pending: return .queued
        case .ready, .noPreview: return .done
        }
    }

    func document(_ id: String) throws -> Response {
        guard let (document, status) = try documentAndStatus(id: id) else { throw ErrorResponse(.notFound, "No document \(id).") }
        return try JSON.response(DocumentView(document, status: status))
    }

    func preview(_ id: String, request: Request, context: ServerContext) async throws -> Response {
        guard let (document, status) = try await offload.run(.reads, { try documentAndStatus(id: id) }),
              let kind = FileKind(rawValue: document.kind) else {
            throw ErrorResponse(.notFound, "No document \(id).")
        }
        let query = request.uri.queryParameters
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw BadRequest(message: "\(name) must be in \(range)") }
            return value
        }
        var previewRequest = RenderRequest(page: try number("page", 1...1_000_000) ?? 1,
                                           width: try number("width", 1...RenderRequest.maxEdge),
                                           height: try number("height", 1...RenderRequest.maxEdge))
        if let format = query.get("format") {
            guard let parsed = RenderRequest.Format(rawValue: format) else { throw BadRequest(message: "format must be jpeg, png or webp") }
            previewRequest.format = parsed
        }
        if previewRequest.width == nil && previewRequest.height == nil && kind.category != .pdf { previewRequest = previewRequest.asThumbnail }
        previewRequest = previewRequest.onServedEdges

        switch status {
        case .done: break
        case .failed:
            throw ErrorResponse(PreviewError(PreviewError.Code(rawValue: document.errorCode ?? "") ?? .corrupt,
                                             document.errorMessage ?? "The document could not be processed."))
        case .queued, .processing:
            return try JSON.response(["status": status.rawValue, "document_id": document.id], status: .accepted, headers: [.retryAfter: "2"])
        }
        if document.previewStatus == .noPreview {
            throw ErrorResponse(.unsupportedType, "No preview is made for \(kind.label).")
        }
        let (pipeline, store, wanted) = (pipeline, store, previewRequest)
        // A preview already made is found on the blocking threads; only a render gets a thread of its own.
        let hit = try await offload.run(.reads) { () throws -> DerivativeRecord? in
            do throws(PreviewError) {
                return try pipeline.cachedPreview(source: document.sha256, kind: kind, request: wanted)
            } catch {
                throw ErrorResponse(error)
            }
        }
        var record: DerivativeRecord
        // A preview rendered for this request is answered from the bytes the renderer returned.
        var rendered: [UInt8]?
        if let hit {
            record = hit
        } else {
            // Only a render takes a slot: a stored preview is served whatever is being rendered.
            switch await renders.enter(owner: document.owner, document: document.id) {
            case .entered: break
            case .full, .waitedTooLong:
                throw ErrorResponse(PreviewError(.queueFull, "Too many previews are being made right now; try again in a moment."),
                                    headers: [.retryAfter: "1"])
            }
            defer { renders.leave(owner: document.owner, document: document.id) }
            if settings.testHooks { try await Task.sleep(for: .milliseconds(500)) }
            // A client that went away while this request waited gets nothing: no render is started for it.
            if await ClientPresence.hasGone(context.channel) {
                context.logger.info("preview skipped: the client disconnected", metadata: ["preview.document": "\(id)"])
                throw RequestRefusal(status: .init(code: 499, reasonPhrase: "Client Closed Request"), code: "client_gone",
                                     message: "The client disconnected.")
            }
            let started = ContinuousClock.now
            let made = try await offload.render { () throws(PreviewError) in
                try pipeline.preview(source: document.sha256, kind: kind, request: wanted)
            }
            record = made.record
            rendered = made.rendered?.bytes
            Timer(label: "docpreview_preview_render_seconds", dimensions: [("kind", kind.category.rawValue)])
                .recordNanoseconds(started.duration(to: .now).nanoseconds)
        }
        // Private: a preview is one owner's document; shared caches (proxies, CDNs) must not keep it.
        var headers: HTTPFields = [.eTag: "\"\(record.resultSha256.hex)\"", .cacheControl: "private, max-age=31536000, immutable"]
        if request.headers[.ifNoneMatch] == headers[.eTag] { return Response(status: .notModified, headers: headers) }
        // A preview is small: checked against its name before it is served. A damaged or missing one
        // is rendered again, which rewrites its blob.
        let resultHash = record.resultSha256
        var bytes: [UInt8]?
        if let rendered {
            bytes = rendered
        } else {
            bytes = try await offload.run(.reads) { Self.intactBytes(of: resultHash, in: store) }
        }
        if bytes == nil {
            context.logger.error("a stored preview is damaged or missing; rendering it again",
                                 metadata: ["preview.document": "\(id)", "preview.derivative": "\(record.resultSha256)"])
            Counter(label: "docpreview_damaged_blobs_total", dimensions: [("kind", "preview")]).increment()
            record = try await offload.render { () throws(PreviewError) in
                try pipeline.preview(source: document.sha256, kind: kind, request: wanted, repairing: true).record
            }
            let repaired = record.resultSha256
            bytes = try await offload.run(.reads) { Self.intactBytes(of: repaired, in: store) }
            guard bytes != nil else { throw ErrorResponse(.internal, "The preview could not be stored intact; try again later.") }
            headers[.eTag] = "\"\(repaired.hex)\""
        }
        headers[.contentType] = previewRequest.format.mime
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes ?? [])))
    }

    /// The bytes of blob `hash` when they still hash to its name; nil when it is missing or damaged.
    static func intactBytes(of hash: BlobHash, in store: Store) -> [UInt8]? {
        guard let bytes = try? store.blobs.read(hash), BlobHash.of(bytes) == hash else { return nil }
        return bytes
    }

    // MARK: Metrics

    func metrics(logger: Logger) async -> Response {
        await figures.refresh(queue: queue, index: store.index, offload: offload, faults: faults, logger: logger)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                        body: .init(byteBuffer: ByteBuffer(bytes: ServerMetrics.registry.emitToBuffer())))
    }
}

extension RenderRequest {
    var asThumbnail: RenderRequest {
        var request = RenderRequest.thumbnail
        request.page = page
        request.format = format
        return request
    }
}

/// `GET /v1/documents/{id}`.
struct DocumentView: Encodable {
    var documentID: String
    var owner: String
    var type: String?
    var title: String
    var filename: String
    var sha256: String
    var kind: String
    var mime: String
    var size: Int
    var version: Int
    var status: JobRecord.Status
    var previewStatus: PreviewStatus
    var error: ErrorEnvelope.Body?
    var facts: MediaFacts
    var createdAt: Date
    var links: [String: String]

    init(_ document: DocumentRecord, status: JobRecord.Status) {
        documentID = document.id
        owner = document.owner
        type = document.type.isEmpty ? nil : document.type
        title = document.title
        filename = document.filename
        sha256 = document.sha256.hex
        kind = document.kind
        mime = document.mime
        size = document.size
        version = document.version
        self.status = status
        previewStatus = document.previewStatus
        error = document.errorCode.map { ErrorEnvelope.Body(code: $0, message: document.errorMessage ?? "") }
        facts = document.facts
        createdAt = document.createdAt
        var links = ["self": "/v1/documents/\(document.id)"]
        if document.previewStatus != PreviewStatus.noPreview {
            links["thumbnail"] = "/v1/documents/\(document.id)/preview"
            links["preview"] = "/v1/documents/\(document.id)/preview?width=2048&height=2048"
            if FileKind(rawValue: document.kind)?.isPaged == true { links["page"] = "/v1/documents/\(document.id)/preview?page={n}&width={w}" }
        }
        self.links = links
    }

    enum CodingKeys: String, CodingKey {
        case owner, type, title, filename, sha256, kind, mime, size, version, status, error, links
        case documentID = "document_id"
        case previewStatus = "preview_status"
        case createdAt = "created_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(documentID, forKey: .documentID)
        try container.encode(owner, forKey: .owner)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(filename, forKey: .filename)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(kind, forKey: .kind)
        try container.encode(mime, forKey: .mime)
        try container.encode(size, forKey: .size)
        try container.encode(version, forKey: .version)
        try container.encode(status, forKey: .status)
        try container.encode(previewStatus, forKey: .previewStatus)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(links, forKey: .links)
        try facts.encode(to: encoder)
    }
}

/// Registers routes and remembers the methods each path answers, so that the others can be
/// refused with 405 and `Allow`.
private final class RouteTable {
    let router: Router<ServerContext>
    private var methods: [(path: String, allowed: [HTTPRequest.Method])] = []

    init(router: Router<ServerContext>) {
        self.router = router
    }

    func add(_ method: HTTPRequest.Method, _ path: String,
             use handler: @Sendable @escaping (Request, ServerContext) async throws -> some ResponseGenerator) {
        router.on(RouterPath(path), method: method, use: handler)
        if let index = methods.firstIndex(where: { $0.path == path }) {
            methods[index].allowed.append(method)
        } else {
            methods.append((path, [method]))
        }
    }

    /// Routes every other method on the known paths to a 405 (HEAD follows GET).
    func refuseOtherMethods() {
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!]
        for (path, allowed) in methods {
            let refusal = MethodNotAllowed(allowed: allowed)
            for method in all where !allowed.contains(method) && !(method == .head && allowed.contains(.get)) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in throw refusal }
            }
        }
    }
}
