import Hummingbird
import Logging
import PreviewServer

/// `/ui/signin` and `/ui/signout` (``SignInPage``): a browser's session when the server has a token.
struct SignInController {
    /// The token, the sessions and the sign-in throttle; nil when the server is open.
    let access: Access?
    let logger: Logger

    func register(on routes: RouteTable) {
        routes.add(.get, PagePaths.signIn) { request, _ in
            SignInPage.response(status: .ok, returnTo: request.queryFields.get("return") ?? "/")
        }
        routes.add(.post, PagePaths.signIn) { request, context in
            try await SignInPage.signIn(request, context: context, access: access, logger: logger)
        }
        routes.add(.post, PagePaths.signOut) { request, _ in SignInPage.signOut(request, access: access) }
    }
}
