import Foundation

/// A resumable upload (IETF draft or tus) as the index keeps it: who sends it, under which labels,
/// how much has arrived, and, once complete, the document it became. The bytes received so far are
/// ``UploadPart``s in an ``UploadStaging``; only the parts the index lists count.
package struct UploadSession: Sendable, Equatable {
    package enum Status: String, Sendable {
        /// Bytes may still be appended.
        case open
        /// Every byte arrived and the document was accepted (``documentID``).
        case complete
        /// Cancelled by its client; its parts are gone.
        case cancelled
    }

    /// Which front door made it: the IETF draft (`Upload-Complete`) or tus 1.0.
    package enum Front: String, Sendable {
        case draft
        case tus
    }

    /// Unguessable (128 random bits): the upload resource's URL is its capability.
    package var id: String
    package var owner: String
    /// The address (or device) the upload was created from, for its per-client caps.
    package var client: String
    package var front: Front
    /// The labels the document gets (type, title, filename, description, school), as created.
    package var labels: [String: String]
    /// The representation's length, once declared.
    package var length: Int?
    /// Bytes durably received: the offset the next append starts at.
    package var received: Int
    package var status: Status
    /// Seconds since 1970, the service clock's.
    package var createdAt: Int
    package var expiresAt: Int
    /// The document and job the completed upload became, and the original's SHA-256.
    package var documentID: String?
    package var jobID: Int64?
    package var sha256: String?
    /// The process whose turn it is to append, and until when (``UploadSessions/takeAppending(_:appender:now:until:)``).
    package var appender: String?
    package var appendingUntil: Int?

    package init(
        id: String = UploadSession.newID(), owner: String, client: String, front: Front, labels: [String: String],
        length: Int?, createdAt: Int, expiresAt: Int
    ) {
        self.id = id
        self.owner = owner
        self.client = client
        self.front = front
        self.labels = labels
        self.length = length
        received = 0
        status = .open
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// 128 random bits, URL-safe.
    package static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }

    /// Whether `id` could be one of ours: 32 lowercase hexadecimal digits.
    package static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == 32
            && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Whether every declared byte has arrived.
    package var isFullyReceived: Bool { length == received }
}

/// A run of an upload's bytes, durable in the staging under `name`, starting at `start`.
package struct UploadPart: Sendable, Equatable {
    package var start: Int
    package var length: Int
    package var name: String

    package init(start: Int, length: Int, name: String) {
        self.start = start
        self.length = length
        self.name = name
    }

    /// A kept part's name: `SESSION/START-SHA256-RANDOM.part`, unique even where two hosts keep
    /// the same bytes at the same offset (the one whose append the index refuses removes its own).
    package static func name(session: String, start: Int, sha256: BlobHash) -> String {
        "\(session)/\(start)-\(sha256.hex)-\(UploadSession.newID().prefix(16))\(keptSuffix)"
    }

    /// The SHA-256 its bytes had when kept, as its name carries it; nil for a part kept before
    /// names carried it (only its length is checked then).
    package var sha256: BlobHash? {
        let file = name.split(separator: "/").last ?? ""
        guard file.hasSuffix(Self.keptSuffix) else { return nil }
        let pieces = file.dropLast(Self.keptSuffix.count).split(separator: "-")
        return pieces.count >= 2 ? BlobHash(hex: String(pieces[1])) : nil
    }

    /// How the files of kept parts, and of parts still being received, end.
    package static let keptSuffix = ".part"
    package static let receivingSuffix = ".receiving"
}

/// What `gc` removed of the resumable uploads.
package struct UploadCollection: Sendable, Codable, Equatable {
    /// Uploads whose time ran out (with their parts).
    package var uploads = 0
    /// Kept parts that no upload listed.
    package var strayParts = 0

    package init() {}

    enum CodingKeys: String, CodingKey {
        case uploads
        case strayParts = "stray_parts"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
