import Foundation
import PreviewCore

/// A link a person shares a document with (`/s/<token>`): to whom (`label`), until when, with what
/// password, whether it allows the original's download, and how often it was opened. A visitor's
/// token is looked up by its SHA-256; the token itself is kept beside it so that its owner can find
/// the link again and give it out once more (a school's coach who lost it).
public struct ShareRecord: Codable, Sendable, Equatable {
    package var id: String
    package var tokenSha256: String
    /// The version shared, or for a share of the latest version, the version that was latest when
    /// it was made (any version names the document; a deletion moves it to one that remains).
    package var documentID: String
    /// The version number it is pinned to; nil for whatever version is latest.
    package var version: Int?
    package var label: String
    /// The school it was made for (the index's `shareWithSchools`), or nil.
    package var school: String?
    /// PBKDF2-SHA256 (`pbkdf2-sha256$ROUNDS$SALT$HASH`, base64), or nil for no password.
    package var passwordHash: String?
    package var allowDownload: Bool
    package var createdAt: Date
    package var expiresAt: Date?
    /// When it was revoked, or its document deleted: the link answers 410 from then on.
    package var revokedAt: Date?
    package var openedCount: Int
    package var lastOpenedAt: Date?
    package var downloadCount: Int
    /// A text whose hits are marked on the shared pages (chosen by the owner), or nil.
    package var highlight: String?
    /// The link's token, for its owner (nil for a link made before links were kept: it was shown
    /// once, and can only be replaced).
    package var linkToken: String?
    /// The text burned into every picture, page and download the link serves ("Shared with North
    /// High · 2 Dec 2026"), or nil.
    package var watermark: String?
    /// What it paints out of every page and picture, and leaves out of every text, it serves; nil for nothing.
    package var redaction: Redaction?

    package init(
        id: String, tokenSha256: String, documentID: String, version: Int?, label: String, school: String? = nil, passwordHash: String?,
        allowDownload: Bool, createdAt: Date, expiresAt: Date?, highlight: String? = nil, linkToken: String? = nil
    ) {
        self.id = id
        self.tokenSha256 = tokenSha256
        self.documentID = documentID
        self.version = version
        self.label = label
        self.school = school
        self.passwordHash = passwordHash
        self.allowDownload = allowDownload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.highlight = highlight
        self.linkToken = linkToken
        openedCount = 0
        downloadCount = 0
    }

    /// Whether it draws marks (a watermark, a redaction) over what it serves.
    package var marks: Bool { watermark != nil || redaction != nil }

    /// Whether the link still opens at `now`.
    package func isLive(at now: Date = Date()) -> Bool {
        revokedAt == nil && (expiresAt.map { $0 > now } ?? true)
    }

    /// Where a share link is.
    package enum Status: String, Codable, Sendable {
        /// It opens.
        case live
        /// Ended by its owner.
        case revoked
        /// Past its expiry.
        case expired
    }

    /// Where the link is at `now`.
    package func status(at now: Date) -> Status {
        revokedAt != nil ? .revoked : isLive(at: now) ? .live : .expired
    }

    enum CodingKeys: String, CodingKey {
        case id, version, label, school, highlight
        case tokenSha256 = "token_sha256"
        case documentID = "document_id"
        case passwordHash = "password_hash"
        case allowDownload = "allow_download"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case revokedAt = "revoked_at"
        case openedCount = "opened_count"
        case lastOpenedAt = "last_opened_at"
        case downloadCount = "download_count"
        case linkToken = "link_token"
        case watermark, redaction
    }
}

/// One opening of a share's page, or one download of its original: when, nothing about who.
public struct ShareVisit: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case opened, downloaded
    }
    package var kind: Kind
    package var at: Date

    package init(kind: Kind, at: Date) {
        self.kind = kind
        self.at = at
    }

    /// The visits a share keeps, newest: its counts go on, its history stops growing.
    package static let kept = 1000
}

/// Something an owner's app may wait for (`GET /v1/events`): so far, a share's first opening
/// (`share.first_opened`), once per share.
public struct OwnerEvent: Encodable, Sendable, Equatable {
    /// Its place in the order events were kept, the cursor a reader passes back as `since`.
    package var sequence: Int64
    package var kind: String
    package var at: Date
    package var owner: String
    package var documentID: String
    package var shareID: String
    package var school: String?
    package var label: String

    package init(sequence: Int64, kind: String, at: Date, owner: String, documentID: String, shareID: String, school: String?, label: String) {
        (self.sequence, self.kind, self.at, self.owner) = (sequence, kind, at, owner)
        (self.documentID, self.shareID, self.school, self.label) = (documentID, shareID, school, label)
    }

    /// A share's first opening.
    package static let firstOpened = "share.first_opened"

    enum CodingKeys: String, CodingKey {
        case kind, at, owner, school, label
        case sequence = "id"
        case documentID = "document_id"
        case shareID = "share_id"
    }
}
