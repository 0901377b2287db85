import Crypto

/// A blob's name: the lower-case hex SHA-256 of its bytes. Only ever built from a digest or from
/// text that is exactly 64 hex digits, so it is safe to use in paths.
public struct BlobHash: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    package let hex: String

    /// Validates `text` (64 hex digits, any case).
    package init?(hex text: String) {
        let lower = text.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        hex = lower
    }

    package init(_ digest: SHA256.Digest) {
        hex = digest.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }

    /// The hash of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> BlobHash {
        var hasher = SHA256()
        hasher.update(data: Array(bytes))
        return BlobHash(hasher.finalize())
    }

    public var description: String { hex }

    /// Where a blob sits under a store's `objects/sha256/`: `ab/cd/abcd…`, two levels of 256 folders.
    package var fannedOut: String { "\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)" }

    /// The 32 bytes of the digest.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    public static func < (lhs: BlobHash, rhs: BlobHash) -> Bool { lhs.hex < rhs.hex }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let hash = BlobHash(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a SHA-256: \(text)"))
        }
        self = hash
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
