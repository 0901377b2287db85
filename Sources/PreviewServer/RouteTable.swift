import HTTPTypes
import Hummingbird

/// Registers routes and remembers the methods each path answers, so that the others can be
/// refused with 405 and `Allow`. `HEAD` is answered wherever `GET` is: by the `GET` route's
/// handler (which sees the method), its body dropped.
package final class RouteTable {
    typealias Handler = @Sendable (Request, ServerContext) async throws -> Response
    let router: Router<ServerContext>
    private var methods: [(path: String, allowed: [HTTPRequest.Method])] = []
    private var gets: [String: Handler] = [:]

    init(router: Router<ServerContext>) {
        self.router = router
    }

    package func add(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @Sendable @escaping (Request, ServerContext) async throws -> some ResponseGenerator
    ) {
        router.on(RouterPath(path), method: method, use: handler)
        if method == .get { gets[path] = { request, context in try await handler(request, context).response(from: request, context: context) } }
        if let index = methods.firstIndex(where: { $0.path == path }) {
            methods[index].allowed.append(method)
        } else {
            methods.append((path, [method]))
        }
    }

    /// Routes `HEAD` to the `GET` route where it has none of its own, and every other method on the
    /// known paths to a 405.
    func refuseOtherMethods() {
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!]
        for (path, allowed) in methods {
            if let get = gets[path], !allowed.contains(.head) {
                router.on(RouterPath(path), method: .head) { request, context -> Response in
                    let response = try await get(request, context)
                    return Response(status: response.status, headers: response.headers)
                }
            }
            for method in all where !allowed.contains(method) && !(method == .head && allowed.contains(.get)) {
                router.on(RouterPath(path), method: method) { request, _ -> Response in
                    throw APIError.methodNotAllowed(request.method, allowed: allowed)
                }
            }
        }
    }
}
