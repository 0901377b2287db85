import PreviewServer

/// The pages for people that the server mounts beside its API (DESIGN §2): the List, Detail and
/// Viewer of the owner's documents and their forms, the sign-in form, a share's page, and their
/// stylesheet and scripts; each over the document service and the server's access and bounds.
package struct WebPages: PageRoutes {
    package init() {}

    package func register(on routes: RouteTable, server: DocumentServer) {
        StaticAsset.register(on: routes)
        SignInController(access: server.access, logger: server.logger).register(on: routes)
        SharePagesController(
            documents: server.documents, offload: server.offload, signed: server.signed,
            passwordWindow: server.settings.passwordWindow, logger: server.logger
        ).register(on: routes)
        PagesController(documents: server.documents, intake: server.intake).register(on: routes)
    }
}
