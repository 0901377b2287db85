import Foundation
import PreviewCore

/// One version of a document: what was uploaded, by whom, what it is, and its preview status.
public struct Document: Sendable, Equatable {
    package var id: String
    package var owner: String
    /// The declared document type, or nil when none was declared.
    package var type: DocumentType.ID?
    package var title: String {
        didSet {
            titleKey = DocumentLabels.titleKey(title)
            refreshSearchKey()
        }
    }
    /// The title folded for sorting (``DocumentLabels/titleKey(_:)``), kept in its own column.
    package private(set) var titleKey: String
    /// The name it arrived under (display only; never used as a path).
    package var filename: String { didSet { refreshSearchKey() } }
    /// What the document is about, in its owner's words ("" for nothing said).
    package var description: String { didSet { refreshSearchKey() } }
    /// The school it is for, or nil.
    package var school: String? { didSet { refreshSearchKey() } }
    /// What a text search looks in (``DocumentLabels/searchKey(title:description:filename:school:)``), kept in its own column.
    package private(set) var searchKey: String
    package var sha256: BlobHash
    package var kind: FileKind
    package var mime: String
    package var size: Int
    package var pages: Int?
    package var durationSeconds: Double?
    package var width: Int?
    package var height: Int?
    package var codec: String?
    package var rotation: Int?
    /// For videos: whether the original plays in the apps' players, or what its rendition must do.
    package var playback: Playback?
    /// For videos: the time of the frame chosen for the poster, and how well it serves (0–1).
    package var frameSeconds: Double?
    package var posterScore: Double?
    /// For a highlight reel whose poster was chosen among its plays: that play's number (1-based).
    package var posterPlay: Int?
    package var version: Int
    /// `ready` (thumbnail made), `no_preview`, `failed` (with error), or `pending`.
    package var previewStatus: PreviewStatus
    package var errorCode: PreviewError.Code?
    package var errorMessage: String?
    /// Its job's state, written on this row by the schema in the transaction that changes the job
    /// (a trigger on `jobs`); nil for a document that never had a job (ingested by the CLI).
    package var jobStatus: JobRecord.Status?
    /// How many live share links its document has (the index keeps the count on every version's
    /// row, in the transaction that makes or revokes one); 0 where a row was read without it.
    package var liveShares = 0
    package var createdAt: Date

    public init(
        id: String, owner: String, type: DocumentType.ID?, title: String, filename: String, description: String = "", school: String? = nil,
        sha256: BlobHash, kind: FileKind, mime: String, size: Int, facts: MediaFacts, version: Int, previewStatus: PreviewStatus,
        createdAt: Date
    ) {
        self.id = id
        self.owner = owner
        self.type = type.flatMap { $0.isEmpty ? nil : $0 }
        self.title = title
        titleKey = DocumentLabels.titleKey(title)
        self.filename = filename
        self.description = description
        self.school = school
        searchKey = DocumentLabels.searchKey(title: title, description: description, filename: filename, school: school)
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
        self.frameSeconds = facts.frameSeconds
        self.posterScore = facts.posterScore
        self.posterPlay = facts.posterPlay
        self.version = version
        self.previewStatus = previewStatus
        self.createdAt = createdAt
    }

    /// A new document (its version is numbered when it is indexed) of `labels`, whose original is
    /// blob `sha256`: pending when a renderer will make its previews, else without preview.
    package init(labels: DocumentLabels, sha256: BlobHash, kind: FileKind, size: Int, facts: MediaFacts = MediaFacts(), hasRenderer: Bool) {
        self.init(
            id: UUID().uuidString.lowercased(), owner: labels.owner, type: labels.type?.id, title: labels.title,
            filename: labels.filename, description: labels.description, school: labels.school, sha256: sha256, kind: kind, mime: kind.mime,
            size: size, facts: facts, version: 0,
            previewStatus: hasRenderer ? .pending : .noPreview, createdAt: Date())
    }

    /// Where the document stands in one lifecycle: its job's state, or, for a document that never
    /// had a job, what its preview says.
    package var status: DocumentStatus {
        switch (jobStatus, previewStatus) {
        case (.queued?, _), (nil, .pending): .queued
        case (.processing?, _): .processing
        case (.done?, _), (nil, .ready), (nil, .noPreview): .done
        case (.failed?, _), (nil, .failed): .failed
        }
    }

    /// The failure recorded on the document, if its preview failed.
    package var error: PreviewError? {
        get { errorCode.map { PreviewError($0, errorMessage ?? "") } }
        set {
            errorCode = newValue?.code
            errorMessage = newValue?.message
        }
    }

    /// This upload as the version after `latest` (nil: the first): numbered, and keeping the
    /// latest's description and school where it says none of its own.
    package func nextVersion(after latest: Document?) -> Document {
        var next = self
        next.version = (latest?.version ?? 0) + 1
        if next.description.isEmpty, let latest { next.description = latest.description }
        if next.school == nil { next.school = latest?.school }
        return next
    }

    /// The type as the rows hold it, part of a document's name (owner, type, title): its id, "" for none.
    package var typeColumn: String { Self.typeColumn(type) }

    /// How the rows hold a document's `type`: its id, "" for none.
    package static func typeColumn(_ type: DocumentType.ID?) -> String { type ?? "" }

    private mutating func refreshSearchKey() {
        searchKey = DocumentLabels.searchKey(title: title, description: description, filename: filename, school: school)
    }

    /// The time a video's previews are rendered at when its poster was chosen among its plays
    /// (nil: the renderer's own rule for the opening, which made its first thumbnail).
    package var posterFrameSeconds: Double? { posterPlay == nil ? nil : frameSeconds }

    package var facts: MediaFacts {
        var facts = MediaFacts(width: width, height: height, pages: pages, durationSeconds: durationSeconds, codec: codec, rotation: rotation)
        facts.playback = playback
        facts.frameSeconds = frameSeconds
        facts.posterScore = posterScore
        facts.posterPlay = posterPlay
        return facts
    }
}

/// Where a document stands, the one status every view shows: waiting for its job, being processed,
/// done (its previews made, or none to make), or failed (its error says why).
package enum DocumentStatus: String, Sendable, Encodable, CaseIterable {
    case queued, processing, done, failed
}

/// Where a document's preview stands (`documents.preview_status`).
public enum PreviewStatus: String, Codable, Sendable {
    /// Its job has not made the thumbnail yet.
    case pending
    case ready
    /// A kind without a renderer: stored, no preview.
    case noPreview = "no_preview"
    case failed
}
