import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore

/// Who may do what, in front of every route.
///
/// - Cross-site writes are refused whatever the credentials: a state-changing request whose
///   `Origin` is another site (or `null`), or that a browser marks `Sec-Fetch-Site: cross-site`,
///   gets 403 — so a page elsewhere cannot post into this service, not even a `text/plain` form.
/// - With a token: every route but `/healthz` and the sign-in page needs `Authorization: Bearer`,
///   or the session cookie the sign-in form sets (`HttpOnly; SameSite=Strict`). A write made with
///   the cookie also needs the CSRF token the pages embed (`csrf` query item or `X-CSRF-Token`).
///   A browser without a session is shown the sign-in form instead of a bare 401.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let credentials: Credentials?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let writes = ![.get, .head, .options].contains(request.method)
        if writes, let refusal = Self.crossSiteRefusal(request) { throw refusal }
        guard let credentials, request.uri.path != "/healthz", request.uri.path != SignInPage.path else {
            return try await next(request, context)
        }
        if let bearer = request.headers[.authorization], bearer.hasPrefix("Bearer "),
           Credentials.constantTimeEqual(Array(bearer.dropFirst(7).utf8), credentials.token) {
            return try await next(request, context)
        }
        if let session = Self.cookie(credentials.cookieName, in: request), credentials.isSession(session) {
            if writes {
                let presented = request.uri.queryParameters.get("csrf") ?? request.headers[HTTPField.Name("X-CSRF-Token")!]
                guard let presented, credentials.isCSRFToken(presented) else {
                    throw ErrorResponse(.forbidden, "This form has expired; reload the page and try again.")
                }
            }
            return try await next(request, context)
        }
        if !writes && (request.uri.path == "/" || request.uri.path.hasPrefix("/ui/")) {
            return SignInPage.response(status: .unauthorized, returnTo: request.uri.path)
        }
        throw ErrorResponse(.unauthorized, "A valid bearer token is required.")
    }

    /// A 403 for a browser's write from another site; nil for same-origin requests and for clients
    /// that are not browsers (they send neither header).
    static func crossSiteRefusal(_ request: Request) -> ErrorResponse? {
        let refusal = ErrorResponse(.forbidden, "Requests from other sites are not accepted.")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], !["same-origin", "none"].contains(site) { return refusal }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return nil }
        guard let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!],
              let url = URL(string: origin), let originHost = url.host, url.scheme == "http" || url.scheme == "https" else { return refusal }
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

/// The service token and what is derived from it: the session cookie's value and the pages' CSRF
/// token are keyed hashes of it, so neither reveals the token and both change when it does.
struct Credentials: Sendable {
    let token: [UInt8]
    let cookieName = "docpreview_session"
    private let session: String
    private let csrf: String

    init(token: String) {
        self.token = Array(token.utf8)
        let key = SymmetricKey(data: self.token)
        func derive(_ purpose: String) -> String {
            HMAC<SHA256>.authenticationCode(for: Data(purpose.utf8), using: key).map { String(format: "%02x", $0) }.joined()
        }
        session = derive("docpreview session v1")
        csrf = derive("docpreview csrf v1")
    }

    /// The cookie value a signed-in browser holds.
    var sessionValue: String { session }
    /// The token pages put into their forms.
    var csrfToken: String { csrf }

    func isSession(_ value: String) -> Bool { Self.constantTimeEqual(Array(value.utf8), Array(session.utf8)) }
    func isCSRFToken(_ value: String) -> Bool { Self.constantTimeEqual(Array(value.utf8), Array(csrf.utf8)) }
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
