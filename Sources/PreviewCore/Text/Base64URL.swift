import Foundation

/// Base64url without padding (RFC 4648 §5): how tokens, cursors and signatures travel in URLs and
/// cookies.
package enum Base64URL {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, padded as needed; nil when it is not base64.
    package static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// `count` bytes from the system's secure random number generator.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` random bytes, encoded: a token nobody can guess.
    package static func randomToken(bytes count: Int) -> String {
        encode(randomBytes(count))
    }
}
