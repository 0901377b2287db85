import Crypto
import Foundation

/// A tus `Upload-Checksum` (`sha1` or `sha256`, then the digest in base64): computed over one
/// request's bytes as they arrive and compared at its end.
struct UploadChecksum {
    /// The algorithms offered (`Tus-Checksum-Algorithm`).
    static let algorithms = "sha1,sha256"

    private enum Hasher {
        case sha1(Insecure.SHA1)
        case sha256(SHA256)
    }

    private var hasher: Hasher
    private let expected: [UInt8]

    /// Nil for a malformed value or another algorithm.
    init?(header: String) {
        let pieces = header.split(separator: " ", omittingEmptySubsequences: true)
        guard pieces.count == 2, let digest = Data(base64Encoded: String(pieces[1])) else { return nil }
        switch pieces[0].lowercased() {
        case "sha1" where digest.count == Insecure.SHA1.byteCount: hasher = .sha1(Insecure.SHA1())
        case "sha256" where digest.count == SHA256.byteCount: hasher = .sha256(SHA256())
        default: return nil
        }
        expected = Array(digest)
    }

    mutating func update(_ bytes: some DataProtocol) {
        switch hasher {
        case var .sha1(sha1):
            sha1.update(data: bytes)
            hasher = .sha1(sha1)
        case var .sha256(sha256):
            sha256.update(data: bytes)
            hasher = .sha256(sha256)
        }
    }

    /// Whether the bytes seen match the digest sent.
    func matches() -> Bool {
        switch hasher {
        case let .sha1(sha1): Array(sha1.finalize()) == expected
        case let .sha256(sha256): Array(sha256.finalize()) == expected
        }
    }
}
