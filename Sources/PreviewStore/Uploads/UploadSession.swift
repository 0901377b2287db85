import Foundation

/// A resumable upload (IETF draft or tus) as the index keeps it: who sends it, under which labels,
/// how much has arrived, and, once complete, the document it became. The bytes received so far are
/// ``UploadPart``s in an ``UploadStaging``; only the parts the index lists count.
public struct UploadSession: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Bytes may still be appended.
        case open
        /// Every byte arrived and the document was accepted (``documentID``).
        case complete
        /// Cancelled by its client; its parts are gone.
        case cancelled
    }

    /// Which front door made it: the IETF draft (`Upload-Complete`) or tus 1.0.
    public enum Front: String, Sendable {
        case draft
        case tus
    }

    /// Unguessable (128 random bits): the upload resource's URL is its capability.
    public var id: String
    public var owner: String
    /// The address (or device) the upload was created from, for its per-client caps.
    public var client: String
    public var front: Front
    /// The labels the document gets (type, title, filename, description, school), as created.
    public var labels: [String: String]
    /// The representation's length, once declared.
    public var length: Int?
    /// Bytes durably received: the offset the next append starts at.
    public var received: Int
    public var status: Status
    /// Seconds since 1970, the service clock's.
    public var createdAt: Int
    public var expiresAt: Int
    /// The document and job the completed upload became, and the original's SHA-256.
    public var documentID: String?
    public var jobID: Int64?
    public var sha256: String?
    /// The process whose turn it is to append, and until when (``UploadSessions/takeAppending(_:appender:now:until:)``).
    public var appender: String?
    public var appendingUntil: Int?

    public init(id: String = UploadSession.newID(), owner: String, client: String, front: Front, labels: [String: String],
                length: Int?, createdAt: Int, expiresAt: Int) {
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
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }

    /// Whether `id` could be one of ours: 32 lowercase hexadecimal digits.
    public static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Whether every declared byte has arrived.
    public var isFullyReceived: Bool { length == received }
}

/// A run of an upload's bytes, durable in the staging under `name`, starting at `start`.
public struct UploadPart: Sendable, Equatable {
    public var start: Int
    public var length: Int
    public var name: String

    public init(start: Int, length: Int, name: String) {
        self.start = start
        self.length = length
        self.name = name
    }

    /// A kept part's name: `SESSION/START-SHA256-RANDOM.part`, unique even where two hosts keep
    /// the same bytes at the same offset (the one whose append the index refuses removes its own).
    public static func name(session: String, start: Int, sha256: BlobHash) -> String {
        "\(session)/\(start)-\(sha256.hex)-\(UploadSession.newID().prefix(16))\(keptSuffix)"
    }

    /// The SHA-256 its bytes had when kept, as its name carries it; nil for a part kept before
    /// names carried it (only its length is checked then).
    public var sha256: BlobHash? {
        let file = name.split(separator: "/").last ?? ""
        guard file.hasSuffix(Self.keptSuffix) else { return nil }
        let pieces = file.dropLast(Self.keptSuffix.count).split(separator: "-")
        return pieces.count >= 2 ? BlobHash(hex: String(pieces[1])) : nil
    }

    /// How the files of kept parts, and of parts still being received, end.
    public static let keptSuffix = ".part"
    public static let receivingSuffix = ".receiving"
}

/// What `gc` removed of the resumable uploads.
public struct UploadCollection: Sendable, Codable, Equatable {
    /// Uploads whose time ran out (with their parts).
    public var uploads = 0
    /// Kept parts that no upload listed.
    public var strayParts = 0

    public init() {}

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
