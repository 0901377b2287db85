import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PreviewCore
import PreviewDocuments

/// `/v1/documents`: the upload (routed by ``UploadsController``, which resumes it when asked), the listing, one document, its versions, relabelling,
/// deletion and
/// restore; each an adapter over ``DocumentService`` on an ``Offload`` lane.
struct DocumentsController {
    let documents: DocumentService

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/documents") { request, _ in
            let query = try request.documentQuery()
            return try await JSON.response(DocumentList(try documents.list(query)))
        }
        routes.add(.get, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            let wait = try Self.waitSeconds(request)
            let read = { [documents] in try await documents.view(of: try documents.document(id: id)) }
            var view = try await read()
            if let wait, !view.isSettled {
                // Long polling: answered once the document changes (its status, preview or playable
                // version), or when the wait is over.
                let (clock, asked) = (documents.clock, view.progressMark)
                view = try await documents.changes.poll(
                    id, from: view, until: clock.instant + .seconds(wait), clock: clock, while: { $0.progressMark == asked }, read: read)
            }
            return try JSON.response(view)
        }
        routes.add(.patch, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            let change = try await Self.relabelling(request)
            return try JSON.response(
                DocumentView(
                    try await documents.relabel(
                        id: id, title: change.title, typeID: change.type,
                        description: change.description, school: change.school)))
        }
        routes.add(.delete, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            let deletion = try await documents.delete(id: id, version: try request.versionNumber(required: false))
            return try JSON.response(DeletionView(deletion, id: id))
        }
        routes.add(.get, "/v1/documents/:id/versions") { _, context in
            let id = try context.parameters.require("id")
            return try await JSON.response(VersionList(try documents.versions(of: id)))
        }
        routes.add(.post, "/v1/documents/:id/restore") { request, context in
            let (id, number) = (try context.parameters.require("id"), try request.versionNumber(required: true)!)
            return try JSON.response(DocumentView(try await documents.restore(version: number, of: id).document))
        }
    }

    /// The longest a read of one document waits for it to change (`wait=`, in seconds).
    static let maxWaitSeconds = 30

    /// `wait=N` of `GET /v1/documents/{id}`: 1 to ``maxWaitSeconds``, or nil when not asked.
    static func waitSeconds(_ request: Request) throws -> Int? {
        guard let text = request.queryFields.get("wait") else { return nil }
        guard let seconds = Int(text), (1...maxWaitSeconds).contains(seconds) else {
            throw APIError.badRequest("wait must be a number of seconds in 1...\(maxWaitSeconds)")
        }
        return seconds
    }

    /// `PATCH /v1/documents/{id}`'s body: `{"title"?, "type"?, "description"?, "school"?}` (an empty
    /// school: none).
    struct Relabel: Decodable {
        var title: String?
        var type: String?
        var description: String?
        var school: String?
    }

    static func relabelling(_ request: Request) async throws -> Relabel {
        try await JSON.body(Relabel.self, of: request, limit: 64 * 1024, expected: #"{"title"?, "type"?, "description"?, "school"?}"#)
    }
}
