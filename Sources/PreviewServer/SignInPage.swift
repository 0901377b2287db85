import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore

/// `GET|POST /ui/signin`: the form a browser signs in with when the server has a token. A right
/// token sets the session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` behind a TLS proxy) and
/// goes back to the page asked for; a wrong one shows the form again with 401.
enum SignInPage {
    static let path = "/ui/signin"

    static func response(status: HTTPResponse.Status, returnTo: String, failed: Bool = false) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Sign in · DocPreview</title>
            <style>body{font:14px system-ui,sans-serif;margin:48px auto;max-width:360px;color:#222}
            input{width:100%;padding:6px;margin:8px 0}.failed{color:#b91c1c}</style></head><body>
            <h1>DocPreview</h1>
            \(failed ? "<p class=\"failed\">That token is not right.</p>" : "")
            <form method="post" action="\(path)">
            <input type="hidden" name="return" value="\(SafeText.html(safeReturn(returnTo)))">
            <label>Access token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
            <button>Sign in</button></form></body></html>
            """
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Checks the posted token; on success, the cookie and a redirect.
    static func signIn(_ request: Request, credentials: Credentials?) async throws -> Response {
        var body = try await request.body.collect(upTo: 8192)
        let form = URLComponents(string: "?" + (body.readString(length: body.readableBytes) ?? "").replacingOccurrences(of: "+", with: " "))
        func field(_ name: String) -> String? { form?.queryItems?.first { $0.name == name }?.value }
        let returnTo = safeReturn(field("return") ?? "/")
        guard let credentials else { return Response(status: .seeOther, headers: [.location: returnTo]) }
        guard let token = field("token"), credentials.isToken(token) else {
            return response(status: .unauthorized, returnTo: returnTo, failed: true)
        }
        let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "; Secure" : ""
        return Response(status: .seeOther, headers: [
            .location: returnTo,
            .setCookie: "\(credentials.cookieName)=\(credentials.sessionValue); Path=/; HttpOnly; SameSite=Strict\(secure)",
        ])
    }

    /// Only a path on this site: `//evil.example` and absolute URLs become `/`.
    static func safeReturn(_ path: String) -> String {
        path.hasPrefix("/") && !path.hasPrefix("//") && !path.contains("\\") ? path : "/"
    }
}
