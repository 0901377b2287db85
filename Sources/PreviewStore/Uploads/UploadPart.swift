import Foundation
import PreviewDomain

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
