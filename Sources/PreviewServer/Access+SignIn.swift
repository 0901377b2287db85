import HTTPTypes
import Hummingbird
import Logging
import PreviewCore

/// A browser's session, begun by the sign-in form (PreviewWeb's page) with the token: a random
/// cookie, `HttpOnly`, `SameSite=Strict`, `Secure` under TLS or behind a TLS proxy, ending with the
/// session. Wrong tokens are throttled per address as every wrong token is.
extension Access {
    /// What a sign-in came to.
    package enum SignIn {
        /// The token was right: the new session's `Set-Cookie`.
        case signedIn(setCookie: String)
        /// A wrong token (401).
        case wrong
        /// Too many wrong tokens from this address (429): the refusal, with its `Retry-After`.
        case throttled(APIError)
    }

    /// Signs `request`'s browser in with `token`, sent from `address`.
    package func signIn(token: String?, request: Request, from address: String, logger: Logger) -> SignIn {
        do {
            try refuseWhileGuessing(from: address)
            guard let token, credentials.isToken(token) else {
                try failedSignIn(from: address, logger: logger)
                return .wrong
            }
        } catch let refusal as APIError {
            return .throttled(refusal)
        } catch {
            return .wrong
        }
        throttle.recordSuccess(from: address)
        ServiceMetrics.signins(outcome: "signed_in")
        let lifetime = SessionStore.absoluteLifetime.components.seconds
        return .signedIn(
            setCookie: "\(Self.cookieName)=\(sessions.create()); Path=/; Max-Age=\(lifetime); HttpOnly; SameSite=Strict\(secure(request))")
    }

    /// Ends the session `request`'s cookie names: the `Set-Cookie` that clears it.
    package func signOut(_ request: Request) -> String {
        if let cookie = AccessMiddleware.cookie(Self.cookieName, in: request) { sessions.end(cookie: cookie) }
        return "\(Self.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(secure(request))"
    }

    private func secure(_ request: Request) -> String {
        servesTLS || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" ? "; Secure" : ""
    }
}
