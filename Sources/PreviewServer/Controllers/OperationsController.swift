import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments

/// What operators and dashboards read: `/healthz`, `/metrics` (Prometheus) and `/v1/stats`.
struct OperationsController {
    let documents: DocumentService
    /// The store's figures for /metrics, never waited on for long.
    let gauges: StoreGauges
    /// Full disks and database outages met by requests, told once per burst.
    let faults: FaultBurst

    func register(on routes: RouteTable) {
        routes.add(.get, "/healthz") { _, _ in "ok\n" }
        routes.add(.get, "/metrics") { _, context in
            await gauges.refresh(documents: documents, faults: faults, logger: context.logger)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: ServerMetrics.registry.emitToBuffer())))
        }
        routes.add(.get, "/v1/stats") { request, _ in
            let (documents, owner) = (documents, request.queryFields.get("owner"))
            return try await JSON.response(try documents.statistics(owner: owner))
        }
    }
}
