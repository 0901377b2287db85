/// The pages for people that a server mounts beside its API (PreviewWeb's): the API never depends
/// on them, and the server knows of them only the paths its access rules name (``PagePaths``).
package protocol PageRoutes: Sendable {
    /// Adds the pages' routes, over `server`'s document service, access and bounds.
    func register(on routes: RouteTable, server: DocumentServer)
}

/// The paths of the pages that the access rules treat apart (``AccessMiddleware``).
package enum PagePaths {
    /// The sign-in form, open to anyone; a browser asking for a page without a session is sent to it.
    package static let signIn = "/ui/signin"
    /// Ends a session (a form's post).
    package static let signOut = "/ui/signout"
    /// A share's page, `/s/{token}`: open to anyone with the link, its password checked by the page.
    package static let sharePrefix = "/s/"
    /// Where an app that plays a share's signed URLs sends its reading reports, `/s/shares/{id}/reading`
    /// (open to anyone: the reports' pass is the share's).
    package static func shareReadingPath(share: String) -> String { sharePrefix + "shares/\(share)/reading" }
    /// The pages' stylesheet and scripts, open to anyone: they hold nothing of anyone's.
    package static let assetPrefix = "/assets/"
    /// The upload form's post, whose multipart body the upload reads (and checks its CSRF field).
    package static let upload = "/ui/upload"

    /// Whether `path` is a page a browser is sent to sign in for (the others answer 401).
    static func isPage(_ path: String) -> Bool { path == "/" || path.hasPrefix("/ui/") }

    /// The sign-in form's address that comes back to `path` (a path and query of this site).
    package static func signIn(returningTo path: String) -> String {
        signIn + "?" + QueryItems.encoded([("return", path)])
    }
}
