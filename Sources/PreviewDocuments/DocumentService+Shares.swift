import PreviewDomain
import _CryptoExtras
import Crypto
import Foundation
import PreviewCore
import PreviewPipeline

/// Share links: a document shared with a person (a school), who opens it at `/s/<token>` without
/// an account. The token (128 random bits) is looked up by its SHA-256 and kept for the owner to
/// find the link again; a password is kept only as PBKDF2.
extension DocumentService {
    /// How a new link works, whoever it is for: until when, with what password, whether it allows
    /// the original's download. Decoded from the request's own object (`expires_at`, `password`,
    /// `allow_download`).
    package struct LinkOptions: Sendable, Decodable {
        package var expiresAt: Date?
        package var password: String?
        package var allowDownload: Bool
        /// A text whose hits the link's pages show marked (2–100 characters), or nil.
        package var highlight: String?
        /// Whether everything the link serves carries its recipient and date burned in (``ShareRecord/watermark``).
        package var watermark: Bool
        /// What the link paints out (``ShareRecord/redaction``): `redact`, kinds of personal data, and
        /// `redact_terms`, the owner's own.
        package var redaction: Redaction?

        enum CodingKeys: CodingKey {
            case password, expiresAt, allowDownload, highlight, watermark, redact, redactTerms, redactKeep, redactBoxes
        }

        /// The fields, as a refusal of a body that is not JSON of them names them.
        package static let fields =
            #""expires_at"?, "password"?, "allow_download"?, "highlight"?, "watermark"?, "redact"?, "redact_terms"?, "redact_keep"?, "#
            + #""redact_boxes"?"#

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
            password = try container.decodeIfPresent(String.self, forKey: .password)
            allowDownload = try container.decodeIfPresent(Bool.self, forKey: .allowDownload) ?? false
            highlight = try container.decodeIfPresent(String.self, forKey: .highlight)
            watermark = try container.decodeIfPresent(Bool.self, forKey: .watermark) ?? false
            let redaction = Redaction(
                kinds: try container.decodeIfPresent([Redaction.Kind].self, forKey: .redact) ?? [],
                terms: try container.decodeIfPresent([String].self, forKey: .redactTerms) ?? [],
                keep: try container.decodeIfPresent([String].self, forKey: .redactKeep) ?? [],
                boxes: try container.decodeIfPresent([Redaction.DrawnBox].self, forKey: .redactBoxes) ?? [])
            self.redaction = redaction.isEmpty ? nil : redaction
        }

        /// An expiry in the future, a password of 1 to ``maxSharePassword`` characters and a
        /// highlight ``TextHits`` takes, or `bad_request`.
        func check(now: Date) throws(PreviewError) {
            if let highlight,
                TextHits(query: highlight) == nil || highlight.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                throw PreviewError(.badRequest, TextHits.requirement("highlight"))
            }
            try redaction?.check()
            if let expiresAt, expiresAt <= now { throw PreviewError(.badRequest, "expires_at must be in the future") }
            if let password, password.isEmpty || password.count > maxSharePassword {
                throw PreviewError(.badRequest, "password must have 1 to \(maxSharePassword) characters")
            }
        }
    }

    /// What a new share is.
    package struct ShareRequest: Sendable, Decodable {
        package var label: String
        package var link: LinkOptions
        /// A version number, or nil for whatever version is latest when the link is opened.
        package var version: Int?

        enum CodingKeys: CodingKey {
            case label, version
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            label = try container.decode(String.self, forKey: .label)
            link = try LinkOptions(from: decoder)
            version = nil
            // "latest" or a number.
            if let number = try? container.decodeIfPresent(Int.self, forKey: .version) {
                version = number
            } else if let text = try container.decodeIfPresent(String.self, forKey: .version), text != "latest" {
                throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "version is \"latest\" or a number")
            }
        }
    }

    /// The longest label and password a share takes.
    package static let maxShareLabel = 200
    package static let maxSharePassword = 1024

    /// A new link to version `documentID` as `options` say (its password already hashed), and its
    /// token (128 random bits).
    static func newLink(
        to documentID: String, version: Int?, label: String, school: String? = nil, options: LinkOptions,
        passwordHash: String?, now: Date
    ) -> (share: ShareRecord, token: String) {
        let token = Base64URL.randomToken(bytes: 16)
        var share = ShareRecord(
            id: UUID().uuidString.lowercased(), tokenSha256: tokenHash(token), documentID: documentID, version: version,
            label: label, school: school, passwordHash: passwordHash, allowDownload: options.allowDownload,
            createdAt: now, expiresAt: options.expiresAt,
            highlight: options.highlight?.trimmingCharacters(in: .whitespacesAndNewlines), linkToken: token)
        share.watermark = options.watermark ? Watermark.sharedWith(label, on: now) : nil
        share.redaction = options.redaction
        return (share, token)
    }

    /// Shares document `id` (the version `request` names, or its latest); the share and its token,
    /// which is not kept.
    package func share(_ id: String, _ request: ShareRequest) async throws -> (share: ShareRecord, token: String) {
        let now = clock.now
        let label = request.label.trimmingCharacters(in: .whitespaces)
        guard !label.isEmpty, label.count <= Self.maxShareLabel, !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw PreviewError(.badRequest, "label must have 1 to \(Self.maxShareLabel) characters and no control characters")
        }
        try request.link.check(now: now)
        let shared = if let version = request.version { try await self.version(version, of: id) } else { try await newest(of: id) }
        let made = Self.newLink(
            to: shared.id, version: request.version, label: label, options: request.link,
            passwordHash: try await hashed(request.link.password), now: now)
        try await store.index.insertShare(made.share)
        if made.share.watermark != nil { try await queueMarkedFilms(of: shared) }
        return made
    }

    /// The shares of every version of document `id`, newest first; `not_found` when there is none.
    package func shares(of id: String) async throws -> [ShareRecord] {
        _ = try await document(id: id)
        return try await store.index.shares(ofDocument: id)
    }

    /// Revokes share `id` at once; `not_found` when there is no such live share.
    package func revokeShare(_ id: String) async throws {
        guard try await store.index.revokeShare(id: id) else { throw PreviewError(.notFound, "No share \(id) to revoke.") }
    }

    /// The share a link's token names and the document version it shows now; `not_found` for no
    /// such link, `gone` for one revoked, expired or whose document was deleted.
    package func openShare(token: String) async throws -> (share: ShareRecord, document: Document) {
        guard let share = try await store.index.share(tokenSha256: Self.tokenHash(token)) else {
            throw PreviewError(.notFound, "There is no such link.")
        }
        return (share, try await sharedDocument(share))
    }

    /// Share `id` while it shows a document: `not_found` for no such share, `gone` once it ended.
    package func liveShare(_ id: String) async throws -> ShareRecord {
        guard let share = try await store.index.share(id: id) else { throw PreviewError(.notFound, "There is no such link.") }
        _ = try await sharedDocument(share)
        return share
    }

    /// Share `id` of `document` (of any of its versions), for an app that plays its signed URLs:
    /// `not_found` for no such share of it, `gone` once it ended.
    package func shareForApp(_ id: String, of document: Document) async throws -> ShareRecord {
        guard try await store.index.shares(ofDocument: document.id).contains(where: { $0.id == id }) else {
            throw PreviewError(.notFound, "Document \(document.id) has no share \(id).")
        }
        return try await liveShare(id)
    }

    /// Share `id`'s openings and downloads, newest first; `not_found` for no such share.
    package func visits(ofShare id: String) async throws -> [ShareVisit] {
        guard try await store.index.share(id: id) != nil else { throw PreviewError(.notFound, "No share \(id).") }
        return try await store.index.shareVisits(id: id)
    }

    /// The page of an opened share shows `document` with the playback files it serves
    /// (``playbackManifest(of:through:)``): the opening is counted when `counted` (a `GET`; a `HEAD` is not).
    package func showShare(_ share: ShareRecord, document: Document, counted: Bool) async throws -> PlaybackManifest? {
        if counted {
            try await store.index.recordShareVisit(id: share.id, .opened)
            changes.changed(DocumentChanges.events)
        }
        return try await playbackManifest(of: document, through: share)
    }

    /// Admits a request for the media of share `id`'s page: `forbidden` for no such share, `gone`
    /// when it no longer shows anything, `forbidden` for the `original` (or a `download`) unless
    /// it allows downloads. A `download` is counted. Returns the share, whose marks (watermark,
    /// redaction) everything served for it then carries.
    package func admitShareMedia(share id: String, original: Bool, download: Bool) async throws -> ShareRecord {
        guard let share = try await store.index.share(id: id) else { throw PreviewError(.forbidden, "This link is not valid.") }
        _ = try await sharedDocument(share)
        if original || download {
            guard share.allowDownload else { throw PreviewError(.forbidden, "This link does not allow downloads.") }
        }
        if download { try await store.index.recordShareVisit(id: id, .downloaded) }
        return share
    }

    /// The version `share` shows now, or `gone`.
    package func sharedDocument(_ share: ShareRecord) async throws -> Document {
        guard share.isLive(at: clock.now) else { throw PreviewError(.gone, "This link has been withdrawn or has expired.") }
        guard let document = try await store.index.version(share.version, of: share.documentID) else {
            throw PreviewError(.gone, "The shared document no longer exists.")
        }
        return document
    }

    /// What the store keeps of a share's token: its SHA-256, hex.
    static func tokenHash(_ token: String) -> String {
        BlobHash.of(Array(token.utf8)).hex
    }

    /// `password`'s hash for a new link (nil: none), made on the hashes lane: slow on purpose.
    func hashed(_ password: String?) async throws -> String? {
        guard let password else { return nil }
        return try await offload.run(.hashes) { try SharePassword.hash(password) }
    }
}

/// Share passwords, stored as PBKDF2-HMAC-SHA256 (OWASP's 600,000 rounds) with a random salt:
/// `pbkdf2-sha256$ROUNDS$SALT$HASH` (base64).
package enum SharePassword {
    static let rounds = 600_000

    package static func hash(_ password: String) throws(PreviewError) -> String {
        let salt = Base64URL.randomBytes(16)
        return "pbkdf2-sha256$\(rounds)$\(Data(salt).base64EncodedString())$\(try derive(password, salt: salt, rounds: rounds).base64EncodedString())"
    }

    /// Whether `password` is the one `stored` was made of (compared in constant time).
    package static func matches(_ password: String, _ stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds >= 210_000,
            let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3]),
            let derived = try? derive(password, salt: Array(salt), rounds: rounds), derived.count == expected.count
        else { return false }
        return zip(derived, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) throws(PreviewError) -> Data {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, rounds: rounds)
            return key.withUnsafeBytes { Data($0) }
        } catch {
            throw PreviewError(.internal, "The password could not be hashed.", detail: "\(error)")
        }
    }
}
