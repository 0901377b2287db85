import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments

/// Schools: an owner's schools with their counts (`GET /v1/schools[?owner=]`), and a document shared
/// with exactly the schools listed (`PUT /v1/documents/{id}/schools`), one share link per school.
struct SchoolsController {
    let documents: DocumentService
    let settings: ServerSettings

    /// A school's share in the answer to `PUT /v1/documents/{id}/schools`, with its link.
    struct SchoolShareView: Encodable {
        var school: String
        var share: SharesController.ShareView
    }

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/schools") { request, _ in
            let owner = request.queryFields.get("owner").flatMap { $0.isEmpty ? nil : $0 }
            if let owner { try DocumentLabels.checkFilter(owner, named: "owner") }
            let documents = documents
            return try await JSON.response(["schools": try documents.schools(owner: owner)])
        }
        routes.add(.put, "/v1/documents/:id/schools") { request, context in
            let id = try context.parameters.require("id")
            let asked = try await JSON.body(
                DocumentService.SchoolSharing.self, of: request, limit: 64 * 1024,
                expected: #"{"schools": [names], "# + DocumentService.LinkOptions.fields + "}")
            let documents = documents
            // A password's hash takes a quarter of a second on purpose: on the hashes lane.
            let shares = try await documents.shareWithSchools(id, asked)
            let made = shares.filter { $0.token != nil }.count
            if made > 0 { ServiceMetrics.shares(event: "created", by: made) }
            context.logger.info(
                "document shared with schools",
                metadata: [
                    "preview.document": "\(id)", "preview.schools": "\(shares.count)",
                    "preview.made": "\(made)"
                ])
            let origin = settings.origin(of: request)
            let now = documents.clock.now
            return try JSON.response([
                "schools": shares.map { share, _ in
                    SchoolShareView(school: share.school ?? share.label, share: SharesController.ShareView(share, origin: origin, now: now))
                }
            ])
        }
    }
}

extension ServerSettings {
    /// The origin a client reached this server at, for the links it is given back: its `Host`
    /// (which ``HostCheck`` admitted: one of our names or an address), on our scheme.
    func origin(of request: Request) -> String {
        "\(tls == nil ? "http" : "https")://\(request.head.authority ?? "\(host):\(port)")"
    }
}
