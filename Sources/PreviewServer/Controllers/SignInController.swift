import Hummingbird
import Logging

/// `/ui/signin` and `/ui/signout` (``SignInPage``): a browser's session when the server has a token.
struct SignInController {
    /// The token, the sessions and the sign-in throttle; nil when the server is open.
    let access: Access?
    let logger: Logger

    func register(on routes: RouteTable) {
        routes.add(.get, SignInPage.path) { request, _ in
            SignInPage.response(status: .ok, returnTo: request.queryFields.get("return") ?? "/")
        }
        routes.add(.post, SignInPage.path) { request, context in
            try await SignInPage.signIn(request, context: context, access: access, logger: logger)
        }
        routes.add(.post, SignInPage.signOutPath) { request, _ in SignInPage.signOut(request, access: access) }
    }
}
