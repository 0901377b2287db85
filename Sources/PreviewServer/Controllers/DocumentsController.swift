import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `/v1/documents`: the upload (routed by ``UploadsController``, which resumes it when asked), the listing, one document, its versions, relabelling, deletion and
/// restore; each an adapter over ``DocumentService`` on an ``Offload`` lane.
struct DocumentsController {
    let documents: DocumentService
    let settings: ServerSettings
    /// Bounds the uploads being received (connections, staging files, disk writes), overall and per client.
    let uploads: UploadSlots
    /// How many jobs wait, read at most once a second rather than counted for every upload.
    let queueDepth: QueueDepth

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/documents") { request, _ in
            let query = try Self.documentQuery(request)
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
                let (clock, changes) = (documents.clock, documents.changes)
                let (asked, deadline) = (view.progressMark, clock.instant + .seconds(wait))
                while view.progressMark == asked && clock.instant < deadline && !changes.waitsEnded {
                    await changes.next(of: id, until: min(deadline, clock.instant + DocumentChanges.recheck), clock: clock)
                    view = try await read()
                }
            }
            return try JSON.response(view)
        }
        routes.add(.patch, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            let change = try await Self.relabelling(request)
            return try JSON.response(DocumentView(try await documents.relabel(id: id, title: change.title, typeID: change.type,
                                                                               description: change.description, school: change.school)))
        }
        routes.add(.delete, "/v1/documents/:id") { request, context in
            let id = try context.parameters.require("id")
            return try JSON.response(DeletionView(try await delete(id, request: request, logger: context.logger), id: id))
        }
        routes.add(.get, "/v1/documents/:id/versions") { _, context in
            let id = try context.parameters.require("id")
            return try await JSON.response(VersionList(try documents.versions(of: id)))
        }
        routes.add(.post, "/v1/documents/:id/restore") { request, context in
            try JSON.response(DocumentView(try await restore(context.parameters.require("id"), request: request).document))
        }
    }

    /// The query items of `GET /v1/documents` as a ``DocumentQuery``.
    static func documentQuery(_ request: Request) throws -> DocumentQuery {
        let items = request.queryFields
        func parsed<T>(_ name: String, _ parse: (String) -> T?, expected: String) throws -> T? {
            guard let text = items.get(name) else { return nil }
            guard let value = parse(text) else { throw APIError.badRequest("\(name) must be \(expected)") }
            return value
        }
        let sort = try parsed("sort", DocumentQuery.Sort.init(rawValue:), expected: "newest, oldest, title, type or most_shared") ?? .newest
        let limit = try request.number("limit", in: 1...DocumentQuery.maxLimit, default: 50)
        let status = try parsed("status", PreviewStatus.init(rawValue:), expected: "pending, ready, no_preview or failed")
        let shared = try parsed("shared", { ["true": true, "false": false][$0] }, expected: "true or false")
        let cursor = try parsed("cursor", { DocumentCursor(token: $0, sort: sort) },
                                expected: "a next_cursor this listing returned, with the same sort")
        return DocumentQuery(owner: try request.filter("owner"), type: try request.filter("type", emptyIsNone: false), kind: try request.filter("kind"),
                             school: try request.filter("school"), containing: try request.filter("q"), status: status, shared: shared, sort: sort,
                             limit: limit, after: cursor)
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

    /// `DELETE /v1/documents/{id}[?version=N]` and the page's delete form: what it removed.
    func delete(_ id: String, request: Request, logger: Logger) async throws -> Deletion {
        let version = try Self.versionNumber(request, required: false)
        let deletion = try await documents.delete(id: id, version: version)
        Counter(label: "docpreview_deletions_total").increment()
        logger.info("document deleted", metadata: ["preview.document": "\(id)", "preview.versions": "\(deletion.versions.count)",
                                                   "preview.cancelled_jobs": "\(deletion.cancelledJobs)"])
        return deletion
    }

    /// `POST /v1/documents/{id}/restore?version=N` and the page's restore form: version N as a new
    /// current version (same blob), and its job.
    func restore(_ id: String, request: Request) async throws -> (document: Document, job: JobRecord) {
        let number = try Self.versionNumber(request, required: true)!
        return try await documents.restore(version: number, of: id)
    }

    private static func versionNumber(_ request: Request, required: Bool) throws -> Int? {
        guard let text = request.queryFields.get("version") else {
            if required { throw APIError.badRequest("version must be a version number (1 or more)") }
            return nil
        }
        guard let number = Int(text), number >= 1 else { throw APIError.badRequest("version must be a version number (1 or more)") }
        return number
    }
}
