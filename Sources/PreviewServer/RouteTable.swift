import HTTPTypes
import Hummingbird

/// Registers routes and remembers the methods each path answers, so that the others can be
/// refused with 405 and `Allow`.
final class RouteTable {
    let router: Router<ServerContext>
    private var methods: [(path: String, allowed: [HTTPRequest.Method])] = []

    init(router: Router<ServerContext>) {
        self.router = router
    }

    func add(_ method: HTTPRequest.Method, _ path: String,
             use handler: @Sendable @escaping (Request, ServerContext) async throws -> some ResponseGenerator) {
        router.on(RouterPath(path), method: method, use: handler)
        if let index = methods.firstIndex(where: { $0.path == path }) {
            methods[index].allowed.append(method)
        } else {
            methods.append((path, [method]))
        }
    }

    /// Routes every other method on the known paths to a 405 (HEAD follows GET).
    func refuseOtherMethods() {
        let all: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!]
        for (path, allowed) in methods {
            for method in all where !allowed.contains(method) && !(method == .head && allowed.contains(.get)) {
                router.on(RouterPath(path), method: method) { request, _ -> Response in
                    throw APIError.methodNotAllowed(request.method, allowed: allowed)
                }
            }
        }
    }
}
