import Foundation

/// A resumable upload (IETF draft or tus) as the index keeps it: who sends it, under which labels,
/// how much has arrived, and, once complete, the document it became. The bytes received so far are
/// the store's (kept as parts; only the parts the index lists count).
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
    /// The process whose turn it is to append, and until when (the index's `takeAppending`).
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

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
