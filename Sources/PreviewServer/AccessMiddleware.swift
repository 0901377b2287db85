import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// Who may do what, in front of every route.
///
/// - A request whose `Host` is not a name this server answers to (``HostCheck``) gets 421, with or
///   without a token: a rebound DNS name cannot reach the API from a page on the attacker's site.
/// - Cross-site writes are refused whatever the credentials: a state-changing request whose
///   `Origin` is another site (or `null`), or that a browser marks `Sec-Fetch-Site: cross-site`,
///   gets 403 — so a page elsewhere cannot post into this service, not even a `text/plain` form.
/// - A request with a `sig` query parameter is a signed URL (``SignedURLs``): a read of one of a
///   document's files, needing no token until it expires; it is refused (403) when anything in it
///   was changed, its key retired or its time run out, and never reaches any other route.
/// - A device's token (`docpreview tokens add --device`) opens the download routes (`/api/v1/`) and
///   nothing else; a revoked one opens nothing.
/// - With a token: every route but `/healthz` and the sign-in page needs `Authorization: Bearer`,
///   or the cookie of a session the sign-in form made (``SessionStore``). A write made with the
///   cookie also needs that session's CSRF token, from a hidden form field (`csrf`) or
///   `X-CSRF-Token`; an upload form's field is checked by the upload once its parts are read. A
///   browser asking for a page without a session is sent to the sign-in form (303), not given a bare 401. Wrong tokens are
///   throttled per client address and overall (``SignInThrottle``): 429 with `Retry-After`; the
///   service token and a device's token are never refused by the throttle.
/// - A share's page (`/s/{token}`) needs no credential and acts on none, so its password form's
///   post is not refused as cross-site: the page sends no referrer, and browsers then send
///   `Origin: null` with the form.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let access: Access?
    let signed: SignedURLs
    let shares: ShareGate
    let devices: DeviceGate
    let hosts: HostCheck
    let logger: Logger

    /// Paths whose multipart bodies are read by the upload, which checks the form's CSRF field.
    static let uploadPaths: Set<String> = [PagePaths.upload, "/v1/documents"]

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        if !hosts.accepts(request) {
            throw APIError(.misdirectedRequest, "This server does not answer to that host name.")
        }
        let writes = ![.get, .head, .options].contains(request.method)
        if writes, !request.uri.path.hasPrefix(PagePaths.sharePrefix), let refusal = Self.crossSiteRefusal(request) { throw refusal }
        if request.queryFields.get("sig") != nil { return try await next(request, try await signedContext(request, context)) }
        if let grant = try await signedIIIF(request) {
            var context = context
            context.signedGrant = grant
            return try await next(request, context)
        }
        // A share's page: its token is in its path, and its password (if any) checked by the page.
        // Our scripts and stylesheet are public: they hold nothing of anyone's.
        guard let access else {
            var context = context
            context.viaServiceToken = true
            return try await next(request, context)
        }
        guard request.uri.path != "/healthz", request.uri.path != PagePaths.signIn, !request.uri.path.hasPrefix(PagePaths.assetPrefix),
            !request.uri.path.hasPrefix(PagePaths.sharePrefix)
        else {
            return try await next(request, context)
        }
        switch access.presented(by: request) {
        case .serviceToken:
            // The right token is never throttled: a stranger's guesses cannot lock the service out.
            // Unless it is a weak one: then a throttled address's tokens are not let in at all.
            try access.refuseWhileGuessing(from: context.clientAddress)
            var context = context
            context.viaServiceToken = true
            return try await next(request, context)
        case .otherToken(let token):
            try access.refuseWhileGuessing(from: context.clientAddress)
            guard let device = try await devices.device(token: token) else {
                try access.failedSignIn(from: context.clientAddress, logger: logger)
                throw APIError(.unauthorized, "A valid bearer token is required.")
            }
            guard request.uri.path.hasPrefix(DeviceGate.pathPrefix) else {
                throw APIError(.forbidden, "A device token may only send links and read their downloads.")
            }
            var context = context
            context.device = device
            return try await next(request, context)
        case .session(let session):
            var (request, context) = (request, context)
            context.session = session
            if writes { try await Self.checkCSRF(&request, context: &context, session: session) }
            return try await next(request, context)
        case .nothing:
            if !writes && PagePaths.isPage(request.uri.path) {
                return Response(
                    status: .seeOther, headers: [.location: PagePaths.signIn(returningTo: request.uri.description), .cacheControl: "no-store"])
            }
            throw APIError(.unauthorized, "A valid bearer token is required.")
        }
    }

    /// `context` with the grant of the signed URL `request` is, or the refusal. A URL of a share's
    /// page (signed with the share's id) works while the share does, and counts its downloads.
    func signedContext(_ request: Request, _ context: ServerContext) async throws -> ServerContext {
        do {
            guard [.get, .head].contains(request.method) else { throw APIError(.forbidden, "A signed link only reads.") }
            var context = context
            let query = request.queryFields.items.map { ($0.name, $0.value) }
            context.signedGrant = try signed.verify(request.uri.path, query: query)
            if let share = query.first(where: { $0.0 == "share" })?.1 {
                let range = request.headers[.range]
                let download = request.method == .get && query.contains { $0.0 == "download" } && (range == nil || range == "bytes=0-")
                let marked = try await shares.admit(share: share, original: request.uri.path.hasSuffix("/content"), download: download)
                context.signedGrant?.share = share
                context.signedGrant?.marked = marked
            }
            ServiceMetrics.signedUrls(outcome: "accepted")
            return context
        } catch {
            ServiceMetrics.signedUrls(outcome: "refused")
            throw error
        }
    }

    /// The grant of a IIIF request whose identifier is signed (nil when it is not), or the refusal;
    /// one signed for a share works while the share does.
    func signedIIIF(_ request: Request) async throws -> SignedURLs.Grant? {
        do {
            guard var grant = try signed.verify(iiifPath: request.uri.path) else { return nil }
            guard [.get, .head].contains(request.method) else { throw APIError(.forbidden, "A signed link only reads.") }
            if let share = grant.share { grant.marked = try await shares.admit(share: share, original: false, download: false) }
            ServiceMetrics.signedUrls(outcome: "accepted")
            return grant
        } catch {
            ServiceMetrics.signedUrls(outcome: "refused")
            throw error
        }
    }

    /// A cookie write carries its session's CSRF token: in `X-CSRF-Token`, in a URL-encoded form's
    /// `csrf` field (the body is read here, at most 64 KiB, and handed on), or, for an upload form,
    /// in its `csrf` part (checked by the upload). Anything else is refused.
    static func checkCSRF(_ request: inout Request, context: inout ServerContext, session: Session) async throws {
        let expired = APIError(.forbidden, "This form has expired; reload the page and try again.")
        if let header = request.headers[HTTPField.Name("X-CSRF-Token")!] {
            guard session.isCSRFToken(header) else { throw expired }
            return
        }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("multipart/form-data") && uploadPaths.contains(request.uri.path) {
            context.formCSRFToken = session.csrfToken
            return
        }
        guard type.hasPrefix("application/x-www-form-urlencoded") else { throw expired }
        let body = try await request.collectBody(upTo: 64 * 1024)
        guard let presented = PostedForm.decode(CSRFField.self, from: body)?.csrf, session.isCSRFToken(presented) else { throw expired }
    }

    /// The field of a posted form that carries its session's CSRF token (the form's other fields are its route's).
    private struct CSRFField: Decodable {
        var csrf: String?
    }

    /// A 403 for a browser's write from another site; nil for same-origin requests and for clients
    /// that are not browsers (they send neither header).
    static func crossSiteRefusal(_ request: Request) -> APIError? {
        let refusal = APIError(.forbidden, "Requests from other sites are not accepted.")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], !["same-origin", "none"].contains(site) { return refusal }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return nil }
        guard let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!],
            let url = URL(string: origin), let originHost = url.host, url.scheme == "http" || url.scheme == "https"
        else { return refusal }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority.lowercased() == host.lowercased() ? nil : refusal
    }

    static func cookie(_ name: String, in request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
        }
        return nil
    }
}

/// What guards a server with a token: the token, the sessions sign-ins made, and the throttle on
/// wrong tokens. One per server.
package final class Access: Sendable {
    static let cookieName = "docpreview_session"
    let credentials: Credentials
    let sessions: SessionStore
    let throttle: SignInThrottle
    /// The server speaks TLS itself: its cookies are `Secure` whatever the request says.
    let servesTLS: Bool
    /// The token is weak enough to be found by guessing (`--insecure-weak-token`).
    let guessable: Bool
    /// With a guessable token, the addresses whose tokens are checked even while throttled.
    let trusted: Set<String>

    init(token: String, servesTLS: Bool = false, guessable: Bool = false, trusted: Set<String> = [], clock: any ServiceClock) {
        credentials = Credentials(token: token)
        self.servesTLS = servesTLS
        self.guessable = guessable
        self.trusted = trusted
        sessions = SessionStore(clock: clock)
        throttle = SignInThrottle(clock: clock)
    }

    /// What a request presents to be let in, read one way for the access middleware and for the
    /// resumable upload's interim `104` (which goes only to a request that will be let in).
    enum Presented {
        /// The service token (compared in constant time).
        case serviceToken
        /// Another bearer token: a device's, or a guess.
        case otherToken(String)
        /// The cookie of a live signed-in session.
        case session(Session)
        case nothing
    }

    /// What `request` presents: a bearer token first, else a session's cookie.
    func presented(by request: Request) -> Presented {
        if let bearer = request.headers[.authorization], bearer.hasPrefix("Bearer ") {
            let token = String(bearer.dropFirst(7))
            return credentials.isToken(token) ? .serviceToken : .otherToken(token)
        }
        if let cookie = AccessMiddleware.cookie(Self.cookieName, in: request), let session = sessions.session(cookie: cookie) {
            return .session(session)
        }
        return .nothing
    }

    /// With a guessable token, refuses (429) every token from `address` while the throttle holds
    /// it, unless the operator trusts it: a guesser who ignores the refusals learns nothing.
    func refuseWhileGuessing(from address: String) throws {
        guard guessable, !trusted.contains(address), let wait = throttle.refusal(for: address) else { return }
        throw Self.throttled(wait)
    }

    /// Counts a wrong token from `address`; throws 429 with `Retry-After` instead while `address`
    /// (or everyone) is locked out, counting nothing.
    func failedSignIn(from address: String, logger: Logger) throws {
        if let wait = throttle.attempt(from: address) { throw Self.throttled(wait) }
        ServiceMetrics.signins(outcome: "wrong_token")
        logger.warning("wrong token", metadata: ["preview.client": "\(address)"])
    }

    /// The 429 of a throttled address, counted, its `Retry-After` at least a second.
    private static func throttled(_ wait: Duration) -> APIError {
        ServiceMetrics.signins(outcome: "throttled")
        return APIError(
            PreviewError(.queueFull, "Too many wrong tokens; wait before trying again."),
            headers: [.retryAfter: "\(max(1, wait.components.seconds + 1))"])
    }
}

/// Looks up device tokens (``DocumentService/device(token:)``).
struct DeviceGate: Sendable {
    let documents: DocumentService
    /// The routes a device token opens.
    static let pathPrefix = "/api/v1/"

    func device(token: String) async throws -> DeviceRecord? {
        guard DocumentService.mayBeDeviceToken(token) else { return nil }
        let documents = documents
        return try await documents.device(token: token)
    }
}

/// The service token, compared in constant time.
struct Credentials: Sendable {
    let token: [UInt8]

    init(token: String) {
        self.token = Array(token.utf8)
    }

    func isToken(_ value: String) -> Bool { Self.constantTimeEqual(Array(value.utf8), token) }

    /// Compares every byte whatever the first difference, so timing reveals nothing but the length.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
