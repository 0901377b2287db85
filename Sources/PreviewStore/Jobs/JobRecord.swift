import Foundation
import GRDB
import PreviewCore

/// A unit of work on one stored document (DESIGN §6): its facts and previews, or what its players need.
public struct JobRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "jobs"

    /// What a job makes. Preview jobs come first: a thumbnail never waits behind a transcode.
    public enum Kind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
        /// Facts, thumbnail (and an office document's pivot): the document's own status follows it.
        case preview
        /// A video's rendition and scrubbing thumbnails, queued when its preview job is done.
        case playback
        /// A paged document's text, page by page, queued when its preview job is done.
        case text
    }

    /// `queued`, `processing`, `done`, `failed`.
    public enum Status: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
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

    enum CodingKeys: String, CodingKey, ColumnExpression {
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

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// When a failed job runs again: immediately, then after 30 s, 2 min, 5 min, and 5 min from then
/// on, up to `maxAttempts` (DESIGN §6). Input errors are not retried.
public struct RetryPolicy: Sendable {
    package var maxAttempts = 10
    package var delays: [TimeInterval] = [0, 30, 120, 300]

    public init() {}

    /// The delay before attempt `attempts + 1`, or nil when the job has had all its attempts.
    package func delay(afterAttempts attempts: Int) -> TimeInterval? {
        guard attempts < maxAttempts else { return nil }
        return delays[min(max(attempts - 1, 0), delays.count - 1)]
    }

    /// What a job or download whose worker died with it every time says once it is dead-lettered:
    /// `work` (`Processing`, `The download`) stopped `attempts` times.
    package static func gaveUp(_ work: String, after attempts: Int) -> String {
        let (before, after) = gaveUp(work)
        return before + "\(attempts)" + after
    }

    /// ``gaveUp(_:after:)`` around the attempts, for SQL that fills them in row by row.
    package static func gaveUp(_ work: String) -> (before: String, after: String) {
        ("\(work) stopped ", " times without finishing; giving up.")
    }
}
