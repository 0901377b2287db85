/// Plain text in the encodings people's files come in: UTF-8 (with or without a byte-order mark),
/// UTF-16 with a byte-order mark, and, for bytes that are not UTF-8, Windows-1252 (Latin-1 with
/// the printable characters Windows puts at 0x80–0x9F). Binary data is not text.
package enum TextDecoding {
    package enum Encoding: String, Sendable {
        case utf8 = "UTF-8", utf16LE = "UTF-16LE", utf16BE = "UTF-16BE", windows1252 = "Windows-1252"
    }

    /// The text of `bytes` and its encoding, or nil when the bytes are not text (a NUL outside
    /// UTF-16, or more than one control character in a thousand).
    /// - Parameter isWholeFile: false when `bytes` is a window that may end mid-character.
    package static func decode(_ bytes: some Collection<UInt8>, isWholeFile: Bool = true) -> (text: String, encoding: Encoding)? {
        let bytes = Array(bytes)
        if bytes.starts(with: [0xFF, 0xFE]) { return (utf16(bytes.dropFirst(2), littleEndian: true), .utf16LE) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (utf16(bytes.dropFirst(2), littleEndian: false), .utf16BE) }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        guard hasFewControls(body) else { return nil }
        // A window cut mid-character may end with up to three bytes of an incomplete sequence.
        let checked = isWholeFile ? body : body.dropLast(incompleteSuffixLength(body))
        if let text = String(validating: checked, as: UTF8.self) { return (text, .utf8) }
        return (String(String.UnicodeScalarView(body.map(windows1252))), .windows1252)
    }

    private static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> String {
        let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { index in
            let (low, high) = littleEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
            return UInt16(high) << 8 | UInt16(low)
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// No NUL and almost no other control characters (tabs, newlines, form feeds and ESC are fine).
    private static func hasFewControls(_ bytes: ArraySlice<UInt8>) -> Bool {
        var controls = 0
        for byte in bytes where byte < 0x20 || byte == 0x7F {
            switch byte {
            case 0: return false
            case 0x09...0x0D, 0x1B: continue
            default: controls += 1
            }
        }
        return controls * 1000 <= bytes.count
    }

    private static func incompleteSuffixLength(_ bytes: ArraySlice<UInt8>) -> Int {
        for back in 1...max(1, min(3, bytes.count)) where back <= bytes.count {
            let byte = bytes[bytes.endIndex - back]
            if byte & 0xC0 == 0xC0 {  // a lead byte: is its sequence complete?
                let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                return needed > back ? back : 0
            }
            if byte & 0x80 == 0 { return 0 }
        }
        return 0
    }

    /// Windows-1252: Latin-1, with typographic characters in 0x80–0x9F (the five unassigned bytes stay C1 controls).
    private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let high: [UInt32] = [
            0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
            0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
            0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178
        ]
        let value = (0x80...0x9F).contains(byte) ? high[Int(byte) - 0x80] : UInt32(byte)
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
