import Foundation

/// `Content-Disposition` for a stored file's name (RFC 6266): a plain ASCII `filename` for old
/// clients and `filename*` (RFC 5987, UTF-8) with the name as it was.
enum ContentDisposition {
    static func value(inline: Bool, fileName: String) -> String {
        let fallback = String(
            fileName.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F && !"\"\\%;".unicodeScalars.contains(scalar)
                    ? Character(scalar) : "_"
            })
        let encoded =
            fileName.addingPercentEncoding(withAllowedCharacters: .asciiAlphanumerics.union(.init(charactersIn: "!#$&+-.^_`|~")))
            ?? fallback
        return "\(inline ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}

extension CharacterSet {
    /// A–Z, a–z, 0–9: what percent-encoding keeps everywhere.
    static let asciiAlphanumerics = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
}
