import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PreviewCore
import PreviewStore

/// A document after its upload: listing, versions, restore, relabelling and deletion.
extension DocumentServer {
    // MARK: Listing

    /// `GET /v1/documents`: the latest versions that match the query items, one keyset page.
    func list(_ request: Request) async throws -> Response {
        let query = try Self.documentQuery(request)
        return try await offload.run(.reads) {
            let page = try store.index.list(query)
            let views = page.documents.map(DocumentView.init)
            return try JSON.response(DocumentList(documents: views, nextCursor: page.next?.token))
        }
    }

    static func documentQuery(_ request: Request) throws -> DocumentQuery {
        let items = request.uri.queryParameters
        func parsed<T>(_ name: String, _ parse: (String) -> T?, expected: String) throws -> T? {
            guard let text = items.get(name) else { return nil }
            guard let value = parse(text) else { throw BadRequest(message: "\(name) must be \(expected)") }
            return value
        }
        let sort = try parsed("sort", DocumentQuery.Sort.init(rawValue:), expected: "newest, oldest, title or type") ?? .newest
        let limit = try parsed("limit", { Int($0).flatMap { (1...DocumentQuery.maxLimit).contains($0) ? $0 : nil } },
                               expected: "in 1...\(DocumentQuery.maxLimit)") ?? 50
        let status = try parsed("status", PreviewStatus.init(rawValue:), expected: "pending, ready, no_preview or failed")
        let cursor = try parsed("cursor", { DocumentCursor(token: $0, sort: sort) },
                                expected: "a next_cursor this listing returned, with the same sort")
        func text(_ name: String) -> String? { items.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        return DocumentQuery(owner: text("owner"), type: items.get("type"), kind: text("kind"), titleContains: text("q"),
                             status: status, sort: sort, limit: limit, after: cursor)
    }

    // MARK: Versions

    /// `GET /v1/documents/{id}/versions`, newest first.
    func versions(_ id: String) async throws -> Response {
        try await offload.run(.reads) {
            let versions = try store.index.versions(of: id)
            guard let current = versions.first else { throw ErrorResponse(.notFound, "No document \(id).") }
            return try JSON.response(VersionList(versions: versions.map { VersionView($0, current: $0.id == current.id) }))
        }
    }

    /// `POST /v1/documents/{id}/restore?version=N`: version N as a new current version (same blob),
    /// and its job.
    func restore(_ id: String, request: Request) async throws -> (document: DocumentRecord, job: JobRecord) {
        guard let text = request.uri.queryParameters.get("version"), let number = Int(text), number >= 1 else {
            throw BadRequest(message: "version must be a version number (1 or more)")
        }
        let (queue, store) = (queue, store)
        guard let (document, job) = try await offload.run(.writes, { try queue.restore(version: number, of: id, in: store) }) else {
            throw ErrorResponse(.notFound, "No version \(number) of document \(id).")
        }
        if job.status == .queued { arrivals?.announce() }
        return (document, job)
    }

    // MARK: Relabelling

    struct Relabel: Decodable {
        var title: String?
        var type: String?
    }

    /// `PATCH /v1/documents/{id}` with `{"title"?, "type"?}`: every version of the document gets
    /// them. Checked like an upload's: labels without control characters, a known type that allows
    /// the stored file's extension.
    func relabel(_ id: String, request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024)
        guard let change = try? JSONDecoder().decode(Relabel.self, from: Data(body.readableBytesView)) else {
            throw BadRequest(message: "the body must be a JSON object with title and/or type")
        }
        let rules = pipeline.configuration.rules
        if let title = change.title {
            guard !title.isEmpty, title.count <= 1000 else { throw BadRequest(message: "title must have 1 to 1000 characters") }
            guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw BadRequest(message: "title must not contain control characters")
            }
        }
        let type = try change.type.map { id -> DocumentType? in
            guard !id.isEmpty else { return nil }
            guard let known = rules.type(id: id) else { throw BadRequest(message: "unknown document type \(id)") }
            return known
        }
        let store = store
        return try await offload.run(.writes) {
            guard let document = try store.index.document(id: id) else { throw ErrorResponse(.notFound, "No document \(id).") }
            if let type = type ?? nil, !type.admits(fileName: document.filename, kind: document.kind) {
                throw ErrorResponse(.extensionNotAllowed, type.refusalMessage)
            }
            do {
                guard let relabelled = try store.index.relabel(documentID: id, title: change.title ?? document.title,
                                                               type: type.map { $0?.id ?? "" } ?? document.type) else {
                    throw ErrorResponse(.notFound, "No document \(id).")
                }
                return try JSON.response(DocumentView(relabelled))
            } catch let taken as LabelTaken {
                throw RequestRefusal(status: .conflict, code: "conflict",
                                     message: "The owner already has a document titled \(taken.title) of that type.")
            }
        }
    }

    // MARK: Deletion

    /// `DELETE /v1/documents/{id}[?version=N]`: what it removed (never nothing: that is a 404).
    func delete(_ id: String, request: Request, logger: Logger) async throws -> Deletion {
        var version: Int?
        if let text = request.uri.queryParameters.get("version") {
            guard let number = Int(text), number >= 1 else { throw BadRequest(message: "version must be a version number (1 or more)") }
            version = number
        }
        let store = store
        let deletion = try await offload.run(.writes) { try store.index.delete(documentID: id, version: version) }
        guard !deletion.versions.isEmpty else {
            throw ErrorResponse(.notFound, version.map { "No version \($0) of document \(id)." } ?? "No document \(id).")
        }
        Counter(label: "docpreview_deletions_total").increment()
        logger.info("document deleted", metadata: ["preview.document": "\(id)", "preview.versions": "\(deletion.versions.count)",
                                                   "preview.cancelled_jobs": "\(deletion.cancelledJobs)"])
        return deletion
    }
}

/// `GET /v1/documents`.
struct DocumentList: Encodable {
    var documents: [DocumentView]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case documents
        case nextCursor = "next_cursor"
    }
}

/// One entry of `GET /v1/documents/{id}/versions`.
struct VersionView: Encodable {
    var documentID: String
    var version: Int
    var size: Int
    var sha256: String
    var filename: String
    var uploadedAt: Date
    var status: JobRecord.Status
    var previewStatus: PreviewStatus
    var current: Bool

    init(_ document: DocumentRecord, current: Bool) {
        documentID = document.id
        version = document.version
        size = document.size
        sha256 = document.sha256.hex
        filename = document.filename
        uploadedAt = document.createdAt
        status = document.status
        previewStatus = document.previewStatus
        self.current = current
    }

    enum CodingKeys: String, CodingKey {
        case version, size, sha256, filename, status, current
        case documentID = "document_id"
        case uploadedAt = "uploaded_at"
        case previewStatus = "preview_status"
    }
}

struct VersionList: Encodable {
    var versions: [VersionView]
}

/// `DELETE /v1/documents/{id}`.
struct DeletionView: Encodable {
    var documentID: String
    var deletedVersions: [Int]
    var cancelledJobs: Int

    init(_ deletion: Deletion, id: String) {
        documentID = id
        deletedVersions = deletion.versions.map(\.version).sorted()
        cancelledJobs = deletion.cancelledJobs
    }

    enum CodingKeys: String, CodingKey {
        case documentID = "document_id"
        case deletedVersions = "deleted_versions"
        case cancelledJobs = "cancelled_jobs"
    }
}
