import Foundation
import GRDB
import PreviewCore

/// A link sent to be downloaded (`POST /api/v1/download`), from the moment it is accepted to the
/// document it became: one per client and normalised link, however often the client sends it.
package struct DownloadRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    package static let databaseTableName = "downloads"

    /// `queued`, `downloading`, `done`, `failed`.
    package enum Status: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
        case queued, downloading, done, failed
    }

    /// The order of arrival: history pages are keyed on it.
    package var seq: Int64?
    /// `dl_` and 22 random characters: what the client asks about.
    package var id: String
    /// The device's own id (a UUID, as it sends it).
    package var clientID: String
    /// The device token it came with; nil for the service token.
    package var device: String?
    /// Who the document will belong to.
    package var owner: String
    /// The link as the client sent it.
    package var url: String
    package var normalizedURL: String
    package var route: DownloadLink.Route
    package var status: Status
    /// Fetches begun so far (counted when leased, as jobs' attempts are).
    package var attempts: Int
    package var availableAt: Date
    package var leaseOwner: String?
    package var leaseExpiresAt: Date?
    /// The document the download became.
    package var documentID: String?
    /// Why the last attempt failed (a retry pending while queued; for good when failed).
    package var errorCode: PreviewError.Code?
    package var errorMessage: String?
    /// The time the client said it sent the link, as it wrote it.
    package var clientTimestamp: String?
    package var createdAt: Date
    package var updatedAt: Date

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case seq, id, device, owner, url, route, status, attempts
        case clientID = "client_id"
        case normalizedURL = "normalized_url"
        case availableAt = "available_at"
        case leaseOwner = "lease_owner"
        case leaseExpiresAt = "lease_expires_at"
        case documentID = "document_id"
        case errorCode = "error_code"
        case errorMessage = "error_message"
        case clientTimestamp = "client_timestamp"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// A new download of `link`, queued now.
    package init(
        id: String, clientID: String, device: String?, owner: String, url: String, link: DownloadLink, clientTimestamp: String?, now: Date = Date()
    ) {
        self.id = id
        self.clientID = clientID
        self.device = device
        self.owner = owner
        self.url = url
        normalizedURL = link.normalized
        route = link.route
        status = .queued
        attempts = 0
        availableAt = now
        self.clientTimestamp = clientTimestamp
        createdAt = now
        updatedAt = now
    }

    package init(
        seq: Int64?, id: String, clientID: String, device: String?, owner: String, url: String, normalizedURL: String,
        route: DownloadLink.Route, status: Status, attempts: Int, availableAt: Date, leaseOwner: String?, leaseExpiresAt: Date?,
        documentID: String?, errorCode: PreviewError.Code?, errorMessage: String?, clientTimestamp: String?, createdAt: Date, updatedAt: Date
    ) {
        self.seq = seq
        self.id = id
        self.clientID = clientID
        self.device = device
        self.owner = owner
        self.url = url
        self.normalizedURL = normalizedURL
        self.route = route
        self.status = status
        self.attempts = attempts
        self.availableAt = availableAt
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
        self.documentID = documentID
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.clientTimestamp = clientTimestamp
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    package mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }

    /// A fresh random id.
    package static func newID() -> String {
        "dl_" + Base64URL.randomToken(bytes: 16)
    }
}

extension DownloadLink.Route: DatabaseValueConvertible {}

/// A device allowed to send links (`docpreview tokens add --device NAME`): its token's SHA-256
/// (never the token), who its downloads belong to, and whether it was revoked.
package struct DeviceRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "devices"

    package var name: String
    package var tokenSha256: String
    package var owner: String
    package var createdAt: Date
    package var revokedAt: Date?

    package init(name: String, tokenSha256: String, owner: String, createdAt: Date = Date(), revokedAt: Date? = nil) {
        self.name = name
        self.tokenSha256 = tokenSha256
        self.owner = owner
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case name, owner
        case tokenSha256 = "token_sha256"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}
