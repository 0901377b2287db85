/// Untrusted text (titles, owners, file names) made safe for the place it is shown.
///
/// Both functions work on Unicode scalars, never on `Character`s: a grapheme cluster such as
/// `"<\u{301}"` is not equal to `"<"`, yet a browser still reads its first scalar as a tag opener.
package enum SafeText {
    /// For HTML element content and quoted attribute values: `& < > " '` become character references,
    /// and controls and direction overrides become U+FFFD (see ``isHidden(_:)``).
    package static func html(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(isHidden(scalar) ? replacement : scalar)
            }
        }
        return String(escaped)
    }

    /// For a terminal or a log line: controls (ESC and the sequences it starts, CR, BEL…) and
    /// direction overrides become U+FFFD, so a file name can neither move the cursor nor reorder
    /// what follows it.
    package static func terminal(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isHidden($0) ? replacement : $0 }))
    }

    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// C0 and C1 controls, DEL, and the bidirectional formatting characters (embeddings, overrides,
    /// isolates and marks) that make `evil\u{202E}fdp.exe` read as `evilexe.pdf`.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
