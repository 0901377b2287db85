import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewStore
import ServiceLifecycle

/// `GET /v1/documents/{id}`.
struct DocumentView: Encodable {
    var documentID: String
    var owner: String
    var type: String?
    var title: String
    var filename: String
    var sha256: String
    var kind: FileKind
    var mime: String
    var size: Int
    var version: Int
    var status: JobRecord.Status
    var previewStatus: PreviewStatus
    var error: ErrorEnvelope.Body?
    var facts: MediaFacts
    var createdAt: Date
    var links: [String: String]

    init(_ document: DocumentRecord) {
        documentID = document.id
        owner = document.owner
        type = document.type.isEmpty ? nil : document.type
        title = document.title
        filename = document.filename
        sha256 = document.sha256.hex
        kind = document.kind
        mime = document.mime
        size = document.size
        version = document.version
        status = document.status
        previewStatus = document.previewStatus
        error = document.error.map { ErrorEnvelope($0).error }
        facts = document.facts
        createdAt = document.createdAt
        var links = ["self": "/v1/documents/\(document.id)"]
        if document.previewStatus != PreviewStatus.noPreview {
            links["thumbnail"] = "/v1/documents/\(document.id)/preview"
            links["preview"] = "/v1/documents/\(document.id)/preview?width=2048&height=2048"
            if document.kind.isPaged { links["page"] = "/v1/documents/\(document.id)/preview?page={n}&width={w}" }
        }
        self.links = links
    }

    enum CodingKeys: String, CodingKey {
        case owner, type, title, filename, sha256, kind, mime, size, version, status, error, links
        case documentID = "document_id"
        case previewStatus = "preview_status"
        case createdAt = "created_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(documentID, forKey: .documentID)
        try container.encode(owner, forKey: .owner)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encode(title, forKey: .title)
        try container.encode(filename, forKey: .filename)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(kind, forKey: .kind)
        try container.encode(mime, forKey: .mime)
        try container.encode(size, forKey: .size)
        try container.encode(version, forKey: .version)
        try container.encode(status, forKey: .status)
        try container.encode(previewStatus, forKey: .previewStatus)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(links, forKey: .links)
        try facts.encode(to: encoder)
    }
}
