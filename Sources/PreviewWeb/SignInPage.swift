import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PreviewServer

/// `GET|POST /ui/signin`: the form a browser signs in with when the server has a token. A right
/// token starts a new session (``Access/signIn(token:request:from:logger:)``) and goes back to the
/// page asked for; a wrong one shows the form again with 401, and too many from one address get
/// 429. `POST /ui/signout` ends the session.
enum SignInPage {
    static func response(status: HTTPResponse.Status, returnTo: String, failed: Bool = false, headers extra: HTTPFields = [:]) -> Response {
        let html = NoticePage(
            title: "Sign in", heading: "DocPreview",
            failure: failed ? (status == .tooManyRequests ? "Too many wrong tokens; wait a minute." : "That token is not right.") : nil,
            form: .init(
                action: PagePaths.signIn, hidden: [.init(name: "return", value: safeReturn(returnTo))],
                input: .init(label: "Access token", name: "token", type: "password", autocomplete: "current-password"),
                button: "Sign in", destroys: false)
        ).html
        var headers = PageParts.htmlHeaders
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The sign-in form's fields.
    struct Form: Decodable {
        var token: String?
        var `return`: String?
    }

    /// Checks the posted token; on success, a new session's cookie and a redirect.
    static func signIn(_ request: Request, context: ServerContext, access: Access?, logger: Logger) async throws -> Response {
        let form = PostedForm.decode(Form.self, from: try await request.body.collect(upTo: 8192))
        let returnTo = safeReturn(form?.return ?? "/")
        guard let access else { return Response(status: .seeOther, headers: [.location: returnTo]) }
        switch access.signIn(token: form?.token, request: request, from: context.clientAddress, logger: logger) {
        case .signedIn(let cookie):
            return Response(status: .seeOther, headers: [.location: returnTo, .setCookie: cookie])
        case .wrong:
            return response(status: .unauthorized, returnTo: returnTo, failed: true)
        case .throttled(let refusal):
            return response(status: .tooManyRequests, returnTo: returnTo, failed: true, headers: refusal.headers)
        }
    }

    /// Ends the session the request's cookie names and clears the cookie.
    static func signOut(_ request: Request, access: Access?) -> Response {
        var headers: HTTPFields = [.location: PagePaths.signIn]
        if let access { headers[.setCookie] = access.signOut(request) }
        return Response(status: .seeOther, headers: headers)
    }

    /// Only a path on this site: `//evil.example` and absolute URLs become `/`.
    static func safeReturn(_ path: String) -> String {
        path.hasPrefix("/") && !path.hasPrefix("//") && !path.contains("\\") ? path : "/"
    }
}
