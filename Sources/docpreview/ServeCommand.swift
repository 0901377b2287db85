import ArgumentParser
import CProcessControl
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewRenderers
import PreviewServer
import PreviewWeb
import PreviewStore
import ServiceLifecycle

/// `docpreview serve`: the HTTP API with workers in the same process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the HTTP API (uploads, documents, previews, stats, /healthz, /metrics) and in-process workers.",
        discussion: "SIGTERM or SIGINT: stop accepting work, finish or release running jobs, exit 0.")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8080

    @Option(help: "Jobs processed at once in this process (0: no workers; run `docpreview worker` instead).")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Option(
        help: ArgumentHelp(
            "Bearer token required on every route but /healthz (default: $DOCPREVIEW_TOKEN). Prefer --token-file: arguments are visible in "
                + "/proc/*/cmdline.")
    )
    var token: String?

    @Option(help: ArgumentHelp("Read the token from this file (its first line).", valueName: "path"))
    var tokenFile: String?

    @Option(
        help: ArgumentHelp("Serve HTTPS (and HTTP/2 where the client offers it) with this PEM certificate chain; needs --tls-key.", valueName: "path")
    )
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (`docpreview tls-init` makes both).", valueName: "path"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Sign URLs that need no token (POST /v1/documents/{id}/signed-urls) with the keys in this file: `ID SECRET` lines, the first signing, "
                + "all verifying (`docpreview signing-key` makes one).",
            valueName: "path"))
    var signingKeyFile: String?

    @Option(help: ArgumentHelp("Post each owner event (a school's first opening of its link) to this http(s) URL, signed.", valueName: "url"))
    var webhookURL: String?

    @Option(help: ArgumentHelp("The webhook's signing secret: this file's bytes (at least 32).", valueName: "path"))
    var webhookSecretFile: String?

    @Flag(help: "Serve on an address other than loopback without a token (anyone who reaches it may upload and read).")
    var insecureNoToken = false

    @Flag(
        help: ArgumentHelp(
            "Accept a token of less than 128 bits of entropy (fewer than 22 random letters and digits). An address throttled for wrong tokens "
                + "then has none checked while it waits, the right one included (see --trusted-address).")
    )
    var insecureWeakToken = false

    @Option(
        help: ArgumentHelp(
            "With --insecure-weak-token, a client address (the document "
                + "service's) whose token is checked even while the throttle holds it (repeatable).",
            valueName: "address"))
    var trustedAddress: [String] = []

    @Option(
        help: ArgumentHelp(
            "A host name clients reach this server by (repeatable); requests for other names get 421. IP addresses and loopback names are always "
                + "answered.",
            valueName: "name"))
    var publicHost: [String] = []

    @Option(help: ArgumentHelp("The resolution a page's full size is given at in IIIF info.json (its regions are pixels at it).", valueName: "dpi"))
    var zoomDPI = IIIFService.defaultDPI

    @Option(help: "Refuse uploads with 429 while more jobs than this wait.")
    var maxQueued = 10_000

    @Option(help: "Close a connection that sends nothing for this many seconds, also in the middle of an upload.")
    var idleTimeout = 30

    @Option(help: "On-demand previews made at once; more are answered 429 with Retry-After.")
    var maxRenders = 8

    @Option(help: "Uploads received at once; more are answered 429 with Retry-After.")
    var maxUploads = 16

    @Option(help: "After SIGTERM, seconds that uploads still arriving may take before they are cut off (unacknowledged).")
    var grace = 30

    @Option(help: "Uploads received at once from one client address.")
    var maxUploadsPerClient = 4

    @Flag(help: "Also speak interop versions 7 and 8 of the IETF resumable-upload draft (3 and 6, what iOS sends, always).")
    var uploadDraftLatest = false

    @Option(help: "Connections held at once from one client address; more are answered 503 and closed.")
    var maxConnectionsPerClient = 64

    @Option(
        help: ArgumentHelp(
            "Keep at most this much of on-demand previews (pages and sizes clients asked for; thumbnails and converted documents are kept "
                + "whatever their size), least recently used evicted first. Default 10GB, or limits.preview_cache_bytes.",
            valueName: "size"))
    var previewCacheSize: String?

    @OptionGroup var isolation: IsolationOptions
    @OptionGroup var validation: ValidationOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var fetch: FetchOptions

    func validate() throws {
        try OptionRange.check("--port", port, 0...65_535)
        try OptionRange.check("--workers", workers, 0...256)
        try OptionRange.check("--max-queued", maxQueued, 0...100_000_000)
        try OptionRange.check("--idle-timeout", idleTimeout, 1...86_400)
        try OptionRange.check("--max-renders", maxRenders, 1...1024)
        try OptionRange.check("--max-uploads", maxUploads, 1...4096)
        try OptionRange.check("--max-uploads-per-client", maxUploadsPerClient, 1...4096)
        try OptionRange.check("--max-connections-per-client", maxConnectionsPerClient, 1...1_000_000)
        try OptionRange.check("--grace", grace, 0...3600)
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("Give --tls-cert and --tls-key together.") }
        if (webhookURL == nil) != (webhookSecretFile == nil) { throw ValidationError("Give --webhook-url and --webhook-secret-file together.") }
        if let previewCacheSize, Limits.parseByteCount(previewCacheSize) == nil {
            throw ValidationError("--preview-cache-size takes a size, e.g. 10GB.")
        }
    }

    /// The token from --token-file, --token or $DOCPREVIEW_TOKEN; refuses an empty one, and an open
    /// server on an address others can reach unless --insecure-no-token says so.
    func resolvedToken() throws -> String? {
        if tokenFile != nil && token != nil { throw ValidationError("Give --token or --token-file, not both.") }
        var resolved = token ?? ProcessInfo.processInfo.environment["DOCPREVIEW_TOKEN"]
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("Cannot read the token file \(tokenFile).")
            }
            resolved = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        }
        if let resolved, resolved.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("The token is empty; give a real one, or none for a loopback-only server.")
        }
        if let resolved, !insecureWeakToken, let weakness = TokenStrength.weakness(of: resolved) {
            throw ValidationError(
                "The token is too easy to guess (\(weakness)). Use 22 or more random letters and digits, "
                    + "e.g. `head -c 32 /dev/urandom | base64`, or --insecure-weak-token if that is what you want.")
        }
        if let tokenFile, let mode = try? FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw ValidationError(
                "The token file \(tokenFile) can be read or changed by other users (mode \(String(mode & 0o777, radix: 8))): "
                    + "anyone on this machine could use the service token. `chmod 600 \(tokenFile)` (or make it with `umask 077` first).")
        }
        if resolved == nil && !Self.isLoopback(host) && !insecureNoToken {
            throw ValidationError(
                "Serving on \(host) without a token lets anyone who reaches it upload and read documents. "
                    + "Give --token-file (or $DOCPREVIEW_TOKEN), or --insecure-no-token if that is what you want.")
        }
        return resolved
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    func run() async throws {
        let logger = Logger.cli
        let token = try resolvedToken()
        // Response buffers of a chunk and more are mapped from the kernel and given back when freed,
        // not kept by malloc's arenas: 80 clients that stopped reading held 230 MB of arena pages
        // (malloc's dynamic threshold), 24 MB this way, and the server returns to its baseline.
        _ = docpreview_map_large_blocks(DocumentServer.chunkBytes)
        var configuration = try validation.settings.configuration()
        if let bytes = previewCacheSize.flatMap(Limits.parseByteCount) { configuration.limits.previewCacheBytes = bytes }
        // Preview jobs and requests share the children: two more than the workers, so one owner's slow pages (one on-demand
        // render per owner) leave a child for everyone else's previews. Text and playback jobs have children of their own.
        var settings = ServerSettings()
        settings.host = host
        settings.port = port
        settings.token = token
        settings.maxQueuedJobs = maxQueued
        settings.idleTimeout = .seconds(idleTimeout)
        settings.maxRendersInFlight = maxRenders
        settings.maxUploadsInFlight = maxUploads
        settings.maxUploadsPerClient = maxUploadsPerClient
        settings.uploadDraftLatest = uploadDraftLatest
        settings.maxConnectionsPerClient = maxConnectionsPerClient
        settings.grace = .seconds(grace)
        settings.publicHosts = publicHost
        settings.guessableToken = insecureWeakToken
        settings.trustedAddresses = Set(trustedAddress)
        guard (72...2400).contains(zoomDPI) else { throw ValidationError("--zoom-dpi must be in 72…2400") }
        settings.zoomDPI = zoomDPI
        if let tlsCert, let tlsKey {
            do throws(PreviewError) {
                settings.tls = try ServerTLS.configuration(certificate: tlsCert, key: tlsKey)
            } catch {
                throw ValidationError(error.message)
            }
        }
        settings.signingKeys = try signingKeyFile.map { path throws(ValidationError) in
            do throws(PreviewError) {
                return try SigningKeys(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError(error.message)
            }
        }
        if ProcessInfo.processInfo.environment[RendererChild.testHooksVariable] == "1" {
            (settings.clientCheckPause, settings.keepDelay) = (.milliseconds(500), .seconds(2))
        }
        // Uploads and links announce their work to this process's workers and fetchers, when it has any.
        let documents = try await storeOptions.documents(
            configuration: configuration,
            renderers: isolation.pool(
                jobs: workers + 2,
                backgroundJobs: workers + QueueWorker.defaultTextLanes,
                limits: configuration.limits, logger: logger),
            offload: .serving(settings, workers: workers, textLanes: QueueWorker.defaultTextLanes),
            arrivals: workers > 0 || fetch.fetchWorkers > 0 ? JobArrivals() : nil, logger: logger)
        let server = DocumentServer(
            documents: documents, settings: settings, logger: logger, pages: WebPages(),
            links: fetch.linkPreviews(documents: documents, logger: logger))
        var services: [any Service] = [try buildApplication(server), ReceivedUploadsFinisher(documents: documents, logger: logger)]
        if workers > 0 { services.append(QueueWorker(documents: documents, concurrency: workers, logger: logger)) }
        if let fetcher = fetch.worker(documents: documents, logger: logger) { services.append(fetcher) }
        if let webhook = try webhook(documents: documents, logger: logger) { services.append(webhook) }
        // Shut down first (the group goes in reverse): new requests are refused from the signal on.
        services.append(server.drainService)
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The webhook's delivery, when --webhook-url asks for one: its URL http or https, its secret 32 bytes or more.
    func webhook(documents: DocumentService, logger: Logger) throws -> WebhookDelivery? {
        guard let webhookURL, let webhookSecretFile else { return nil }
        guard let target = URL(string: webhookURL), ["http", "https"].contains(target.scheme?.lowercased()), target.host != nil else {
            throw ValidationError("--webhook-url takes an http or https URL.")
        }
        guard let secret = FileManager.default.contents(atPath: webhookSecretFile), secret.count >= 32 else {
            throw ValidationError("--webhook-secret-file must name a readable file of at least 32 bytes.")
        }
        return WebhookDelivery(documents: documents, target: target, secret: [UInt8](secret), logger: logger)
    }
}
