import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore
import PreviewDocuments
import ServiceLifecycle

/// A server's shutdown, from the moment SIGTERM (or SIGINT) arrives: every new request is answered
/// 503 `unavailable` with `Retry-After` and `Connection: close`, `/healthz` says `draining` (503), and
/// uploads still arriving get `grace` to finish; then their connections are closed, unacknowledged,
/// so their clients retry elsewhere. Reads that wait for a document to change are answered at once
/// with what it is now. Jobs are released by the worker as before.
final class Drain: Sendable {
    private let draining = Locked(false)

    var isDraining: Bool { draining.withLock { $0 } }

    func begin() {
        draining.withLock { $0 = true }
    }
}

/// Refuses what arrives while the server drains (see ``Drain``).
struct DrainMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let drain: Drain

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard drain.isDraining else { return try await next(request, context) }
        if request.uri.path == "/healthz" {
            return Response(
                status: .serviceUnavailable, headers: [.connection: "close", .retryAfter: "5"],
                body: .init(byteBuffer: .init(string: "draining\n")))
        }
        // Answered, not thrown: a shutdown is not a store fault for the fault middleware to count.
        return try APIError(.unavailable, "The server is shutting down; try again shortly.", headers: [.connection: "close", .retryAfter: "5"])
            .response(from: request, context: context)
    }
}

/// The service that notices the shutdown for a ``DocumentServer``: it starts the drain at once and,
/// `grace` later, cuts the uploads still arriving. Put it after the HTTP application in the service
/// group, which shuts services down in reverse order.
package struct DrainService: Service {
    let drain: Drain
    let uploads: UploadSlots
    let keeping: PreviewKeeping
    let changes: DocumentChanges
    let grace: Duration

    package func run() async throws {
        try? await gracefulShutdown()
        drain.begin()
        changes.endWaits()
        let (uploads, grace) = (uploads, grace)
        // Not awaited: the application's own shutdown (stop listening, wait for what runs) goes on meanwhile.
        Task {
            try? await Task.sleep(for: grace)
            uploads.closeAll()
        }
        // Previews already answered are stored if that takes a moment; one cut short is only a cache entry lost.
        await keeping.settle(within: min(grace, .seconds(5)))
    }
}
