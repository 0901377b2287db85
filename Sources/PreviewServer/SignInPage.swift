import Foundation
import Logging
import Metrics
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore

/// `GET|POST /ui/signin`: the form a browser signs in with when the server has a token. A right
/// token starts a new session (a random cookie: `HttpOnly`, `SameSite=Strict`, `Secure` under TLS or behind a TLS
/// proxy, ending with the session) and goes back to the page asked for; a wrong one shows the form
/// again with 401, and too many from one address get 429. `POST /ui/signout` ends the session.
enum SignInPage {
    static let path = "/ui/signin"
    static let signOutPath = "/ui/signout"

    static func response(status: HTTPResponse.Status, returnTo: String, failed: Bool = false, headers extra: HTTPFields = [:]) -> Response {
        let html = NoticePage(
            title: "Sign in", heading: "DocPreview",
            failure: failed ? (status == .tooManyRequests ? "Too many wrong tokens; wait a minute." : "That token is not right.") : nil,
            form: .init(action: path, hidden: [.init(name: "return", value: safeReturn(returnTo))],
                        input: .init(label: "Access token", name: "token", type: "password", autocomplete: "current-password"),
                        button: "Sign in", destroys: false)).html
        var headers = PageParts.htmlHeaders
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Checks the posted token; on success, a new session's cookie and a redirect.
    static func signIn(_ request: Request, context: ServerContext, access: Access?, logger: Logger) async throws -> Response {
        let form = FormFields(try await request.body.collect(upTo: 8192))
        let returnTo = safeReturn(form["return"] ?? "/")
        guard let access else { return Response(status: .seeOther, headers: [.location: returnTo]) }
        do {
            try access.refuseWhileGuessing(from: context.clientAddress)
        } catch let refusal as APIError {
            return response(status: .tooManyRequests, returnTo: returnTo, failed: true, headers: refusal.headers)
        }
        guard let token = form["token"], access.credentials.isToken(token) else {
            do {
                try access.failedSignIn(from: context.clientAddress, logger: logger)
            } catch let refusal as APIError {
                return response(status: .tooManyRequests, returnTo: returnTo, failed: true, headers: refusal.headers)
            }
            return response(status: .unauthorized, returnTo: returnTo, failed: true)
        }
        access.throttle.recordSuccess(from: context.clientAddress)
        Counter(label: "docpreview_signins_total", dimensions: [("outcome", "signed_in")]).increment()
        let cookie = access.sessions.create()
        let lifetime = SessionStore.absoluteLifetime.components.seconds
        return Response(status: .seeOther, headers: [
            .location: returnTo,
            .setCookie: "\(Access.cookieName)=\(cookie); Path=/; Max-Age=\(lifetime); HttpOnly; SameSite=Strict\(secure(request, access))",
        ])
    }

    /// Ends the session the request's cookie names and clears the cookie.
    static func signOut(_ request: Request, access: Access?) -> Response {
        if let access, let cookie = AccessMiddleware.cookie(Access.cookieName, in: request) { access.sessions.end(cookie: cookie) }
        return Response(status: .seeOther, headers: [
            .location: path,
            .setCookie: "\(Access.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(secure(request, access))",
        ])
    }

    private static func secure(_ request: Request, _ access: Access?) -> String {
        access?.servesTLS == true || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "; Secure" : ""
    }

    /// Only a path on this site: `//evil.example` and absolute URLs become `/`.
    static func safeReturn(_ path: String) -> String {
        path.hasPrefix("/") && !path.hasPrefix("//") && !path.contains("\\") ? path : "/"
    }
}
