import Foundation

/// How hard a service token is to guess, estimated from its length and the kinds of characters it
/// uses (a lower bound for a random token: 22 base64 characters carry 132 bits).
enum TokenStrength {
    static let minimumBits = 128.0

    /// Why the token is weak, for a person; nil when it carries at least ``minimumBits``.
    static func weakness(of token: String) -> String? {
        let scalars = Array(token.unicodeScalars)
        var alphabet = 0
        if scalars.contains(where: { ("a"..."z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
        if scalars.contains(where: { !($0.properties.isAlphabetic || ("0"..."9").contains($0)) || !$0.isASCII }) { alphabet += 33 }
        // A token that repeats a few characters is not random, whatever its length.
        let distinct = Set(scalars).count
        let bits = Double(scalars.count) * log2(Double(max(alphabet, 2))) * min(1, Double(distinct) / 12)
        guard bits < minimumBits else { return nil }
        return "about \(Int(bits)) bits; at least \(Int(minimumBits)) are needed"
    }
}
