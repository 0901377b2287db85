import Foundation
import GRDB
import PreviewCore

/// One version of a document: what was uploaded, by whom, what it is, and its preview status.
public struct DocumentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "documents"

    public var id: String
    public var owner: String
    /// The declared document type, or nil when none was declared.
    public var type: DocumentType.ID? {
        get { typeColumn.isEmpty ? nil : typeColumn }
        set { typeColumn = Self.typeColumn(newValue) }
    }
    /// The type as the rows hold it: part of a document's name (owner, type, title), "" for none.
    public private(set) var typeColumn: String
    public var title: String {
        didSet {
            titleKey = DocumentLabels.titleKey(title)
            refreshSearchKey()
        }
    }
    /// The title folded for sorting (``DocumentLabels/titleKey(_:)``), kept in its own column.
    public private(set) var titleKey: String
    /// The name it arrived under (display only; never used as a path).
    public var filename: String { didSet { refreshSearchKey() } }
    /// What the document is about, in its owner's words ("" for nothing said).
    public var description: String { didSet { refreshSearchKey() } }
    /// The school it is for, or nil.
    public var school: String?
    /// What a text search looks in (``DocumentLabels/searchKey(title:description:filename:)``), kept in its own column.
    public private(set) var searchKey: String
    public var sha256: BlobHash
    public var kind: FileKind
    public var mime: String
    public var size: Int
    public var pages: Int?
    public var durationSeconds: Double?
    public var width: Int?
    public var height: Int?
    public var codec: String?
    public var rotation: Int?
    /// For videos: whether the original plays in the apps' players, or what its rendition must do.
    public var playback: Playback?
    public var version: Int
    /// `ready` (thumbnail made), `no_preview`, `failed` (with error), or `pending`.
    public var previewStatus: PreviewStatus
    public var errorCode: PreviewError.Code?
    public var errorMessage: String?
    /// Its job's state, written on this row by the schema in the transaction that changes the job
    /// (a trigger on `jobs`); nil for a document that never had a job (ingested by the CLI).
    public var jobStatus: JobRecord.Status?
    public var createdAt: Date

    public init(id: String, owner: String, type: DocumentType.ID?, title: String, filename: String, description: String = "", school: String? = nil,
                sha256: BlobHash, kind: FileKind, mime: String, size: Int, facts: MediaFacts, version: Int, previewStatus: PreviewStatus,
                createdAt: Date) {
        self.id = id
        self.owner = owner
        typeColumn = Self.typeColumn(type)
        self.title = title
        titleKey = DocumentLabels.titleKey(title)
        self.filename = filename
        self.description = description
        self.school = school
        searchKey = DocumentLabels.searchKey(title: title, description: description, filename: filename)
        self.sha256 = sha256
        self.kind = kind
        self.mime = mime
        self.size = size
        self.pages = facts.pages
        self.durationSeconds = facts.durationSeconds
        self.width = facts.width
        self.height = facts.height
        self.codec = facts.codec
        self.rotation = facts.rotation
        self.playback = facts.playback
        self.version = version
        self.previewStatus = previewStatus
        self.createdAt = createdAt
    }

    /// A new document (its version is numbered when it is indexed) of `labels`, whose original is
    /// blob `sha256`: pending when a renderer will make its previews, else without preview.
    public init(labels: DocumentLabels, sha256: BlobHash, kind: FileKind, size: Int, facts: MediaFacts = MediaFacts(), hasRenderer: Bool) {
        self.init(id: UUID().uuidString.lowercased(), owner: labels.owner, type: labels.type?.id, title: labels.title,
                  filename: labels.filename, description: labels.description, school: labels.school, sha256: sha256, kind: kind, mime: kind.mime, size: size, facts: facts, version: 0,
                  previewStatus: hasRenderer ? .pending : .noPreview, createdAt: Date())
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, owner, title, filename, description, school, sha256, kind, mime, size, pages, width, height, codec, rotation, playback, version
        case typeColumn = "type"
        case durationSeconds = "duration_s"
        case titleKey = "title_key"
        case searchKey = "search_key"
        case previewStatus = "preview_status"
        case errorCode = "error_code"
        case errorMessage = "error_message"
        case jobStatus = "job_status"
        case createdAt = "created_at"
    }

    /// Where the document stands in one lifecycle: its job's state, or, for a document that never
    /// had a job, what its preview says.
    public var status: JobRecord.Status {
        if let jobStatus { return jobStatus }
        switch previewStatus {
        case .failed: return .failed
        case .pending: return .queued
        case .ready, .noPreview: return .done
        }
    }

    /// The failure recorded on the document, if its preview failed.
    public var error: PreviewError? {
        get { errorCode.map { PreviewError($0, errorMessage ?? "") } }
        set {
            errorCode = newValue?.code
            errorMessage = newValue?.message
        }
    }

    /// This upload as the version after `latest` (nil: the first): numbered, and keeping the
    /// latest's description and school where it says none of its own.
    public func nextVersion(after latest: DocumentRecord?) -> DocumentRecord {
        var next = self
        next.version = (latest?.version ?? 0) + 1
        if next.description.isEmpty, let latest { next.description = latest.description }
        if next.school == nil { next.school = latest?.school }
        return next
    }

    /// How the rows hold a document's `type`: its id, "" for none.
    public static func typeColumn(_ type: DocumentType.ID?) -> String { type ?? "" }

    private mutating func refreshSearchKey() {
        searchKey = DocumentLabels.searchKey(title: title, description: description, filename: filename)
    }

    public var facts: MediaFacts {
        var facts = MediaFacts(width: width, height: height, pages: pages, durationSeconds: durationSeconds, codec: codec, rotation: rotation)
        facts.playback = playback
        return facts
    }
}

/// A stored blob's size and type (originals and derivatives alike).
public struct BlobRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "blobs"

    public var sha256: BlobHash
    public var size: Int
    public var mime: String
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case sha256, size, mime
        case createdAt = "created_at"
    }
}

/// What a derivative was made by.
public enum DerivativeOperation: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// A picture of a page, a frame or an image (previews, thumbnails, zoom regions).
    case render
    /// An office, text or CSV document's PDF pivot, which its pages are rendered from.
    case convert
    /// A large picture's tiled pyramid, which its zoom regions are cut from.
    case pyramid
    /// A video's playback files (rendition, ladder, thumbnails track) and their manifest.
    case playback
}

/// A derivative: (source, operation, parameters, renderer version) → result blob. Like an action
/// cache over the blob store: the same request is never rendered twice.
public struct DerivativeRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "derivatives"

    /// SHA-256 over the other key fields; the primary key.
    public var key: String
    public var sourceSha256: BlobHash
    public var operation: DerivativeOperation
    /// Canonical JSON of the request.
    public var parameters: String
    public var renderer: String
    public var resultSha256: BlobHash
    public var width: Int
    public var height: Int
    public var createdAt: Date
    /// Made because a client asked for it (a page, a size), not by a job: such derivatives share the
    /// preview budget and are evicted least recently used first. Thumbnails and pivots never are.
    public var onDemand: Bool
    /// When it was last served (at most an hour stale); for eviction.
    public var usedAt: Date

    public init(key: String, sourceSha256: BlobHash, operation: DerivativeOperation, parameters: String, renderer: String,
                resultSha256: BlobHash, width: Int, height: Int, createdAt: Date, onDemand: Bool = false, usedAt: Date? = nil) {
        self.key = key
        self.sourceSha256 = sourceSha256
        self.operation = operation
        self.parameters = parameters
        self.renderer = renderer
        self.resultSha256 = resultSha256
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.onDemand = onDemand
        self.usedAt = usedAt ?? createdAt
    }

    enum CodingKeys: String, CodingKey {
        case key, operation, parameters, renderer, width, height
        case sourceSha256 = "source_sha256"
        case resultSha256 = "result_sha256"
        case createdAt = "created_at"
        case onDemand = "on_demand"
        case usedAt = "used_at"
    }
}

/// What an eviction forgot: on-demand derivatives over their budget, and the blobs that only they used.
public struct PreviewEviction: Sendable, Equatable {
    public var derivatives = 0
    public var bytes = 0
    /// Result blobs of the forgotten derivatives (some may still be used elsewhere).
    public var results: [BlobHash] = []

    public init() {}
}

/// A render or conversion that timed out or crashed its renderer: the same bytes and request fail
/// at once with this error instead of costing a renderer its whole budget again, until someone
/// retries them deliberately (`jobs retry`), which forgets it.
public struct RenderFailure: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "render_failures"

    /// The derivative key of the render or conversion that failed.
    public var key: String
    public var sourceSha256: BlobHash
    public var code: PreviewError.Code
    public var message: String
    public var createdAt: Date

    public init(key: String, sourceSha256: BlobHash, error: PreviewError, createdAt: Date = Date()) {
        self.key = key
        self.sourceSha256 = sourceSha256
        code = error.code
        message = error.message
        self.createdAt = createdAt
    }

    /// The failure as it is answered again.
    public var error: PreviewError { PreviewError(code, message) }

    enum CodingKeys: String, CodingKey {
        case key, code, message
        case sourceSha256 = "source_sha256"
        case createdAt = "created_at"
    }
}

/// Where a document's preview stands (`documents.preview_status`).
public enum PreviewStatus: String, Codable, Sendable, DatabaseValueConvertible {
    /// Its job has not made the thumbnail yet.
    case pending
    case ready
    /// A kind without a renderer: stored, no preview.
    case noPreview = "no_preview"
    case failed
}
