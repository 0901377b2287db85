import Foundation
import PreviewCore

/// A unit of work on one stored document (DESIGN §6): its facts and previews, or what its players need.
public struct JobRecord: Codable, Sendable, Equatable {
    /// What a job makes. Preview jobs come first: a thumbnail never waits behind a transcode.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Facts, thumbnail (and an office document's pivot): the document's own status follows it.
        case preview
        /// A video's rendition and scrubbing thumbnails, queued when its preview job is done.
        case playback
        /// A paged document's text, page by page, queued when its preview job is done.
        case text
    }

    /// `queued`, `processing`, `done`, `failed`.
    public enum Status: String, Codable, Sendable, CaseIterable {
        case queued, processing, done, failed

        /// A new job's status: done at once when its document's preview is already settled (the
        /// same bytes were processed before), else queued.
        package static func first(for document: Document) -> Status {
            document.previewStatus == .ready || document.previewStatus == .noPreview ? .done : .queued
        }
    }

    package var id: Int64?
    package var documentID: String
    package var kind: Kind
    package var status: Status
    /// Leases taken so far (counted when taken, so a job that kills its worker still counts).
    package var attempts: Int
    package var availableAt: Date
    package var leaseOwner: String?
    package var leaseExpiresAt: Date?
    package var errorCode: PreviewError.Code?
    package var errorMessage: String?
    /// How far a running playback job has come, 0–1, as its worker last reported it.
    package var progress: Double?
    package var createdAt: Date
    package var updatedAt: Date

    /// Its fields as the jobs table and the CLI's JSON name them.
    enum CodingKeys: String, CodingKey {
        case id, kind, status, attempts, progress
        case documentID = "document_id"
        case availableAt = "available_at"
        case leaseOwner = "lease_owner"
        case leaseExpiresAt = "lease_expires_at"
        case errorCode = "error_code"
        case errorMessage = "error_message"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    package init(
        id: Int64?, documentID: String, kind: Kind = .preview, status: Status, attempts: Int, availableAt: Date, leaseOwner: String? = nil,
        leaseExpiresAt: Date? = nil, errorCode: PreviewError.Code? = nil, errorMessage: String? = nil, progress: Double? = nil,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.documentID = documentID
        self.kind = kind
        self.status = status
        self.attempts = attempts
        self.availableAt = availableAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.progress = progress
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
