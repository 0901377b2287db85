/// Recognises text (UTF-8/ASCII, or UTF-16 with a byte-order mark) and, within text, HTML, SVG,
/// XML and CSV. Binary data returns nil.
enum TextSniffer {
    static func detect(_ head: [UInt8], isWholeFile: Bool) -> FileKind? {
        if head.matches([0xFF, 0xFE]) || head.matches([0xFE, 0xFF]) { return .text }
        let body = head.matches([0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : head
        guard isPlainText(body, isWholeFile: isWholeFile) else { return nil }
        let text = String(decoding: body.prefix(4096), as: UTF8.self)
        return markupKind(text) ?? (looksLikeCSV(text) ? .csv : .text)
    }

    /// Valid UTF-8 with no NUL and almost no other control characters (tabs, newlines, form feeds and ESC are fine).
    private static func isPlainText(_ bytes: [UInt8], isWholeFile: Bool) -> Bool {
        var controls = 0
        for byte in bytes where byte < 0x20 || byte == 0x7F {
            switch byte {
            case 0: return false
            case 0x09...0x0D, 0x1B: continue
            default: controls += 1
            }
        }
        guard controls * 1000 <= bytes.count else { return false }
        // A window cut mid-character may end with up to three bytes of an incomplete sequence.
        let checked = isWholeFile ? bytes[...] : bytes.dropLast(incompleteSuffixLength(bytes))
        return String(validating: checked, as: UTF8.self) != nil
    }

    private static func incompleteSuffixLength(_ bytes: [UInt8]) -> Int {
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 == 0xC0 {  // a lead byte: is its sequence complete?
                let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                return needed > back ? back : 0
            }
            if byte & 0x80 == 0 { return 0 }
        }
        return 0
    }

    private static func markupKind(_ text: String) -> FileKind? {
        let start = text.drop { $0.isWhitespace }.prefix(1024).lowercased()
        let htmlOpeners = ["<!doctype html", "<html", "<head", "<body", "<script", "<iframe", "<meta "]
        if htmlOpeners.contains(where: start.hasPrefix) { return .html }
        if start.hasPrefix("<svg") || start.hasPrefix("<!doctype svg") { return .svg }
        if start.hasPrefix("<?xml") || start.hasPrefix("<!--") {
            if start.contains("<svg") { return .svg }
            if start.contains("<html") { return .html }
            return start.hasPrefix("<?xml") ? .xml : nil
        }
        return nil
    }

    /// At least two lines, and one delimiter (comma, semicolon or tab) that occurs the same
    /// non-zero number of times outside quotes on nearly every line.
    private static func looksLikeCSV(_ text: String) -> Bool {
        var lines = text.split(whereSeparator: \.isNewline).prefix(21).map(String.init)
        if lines.count > 1 && !text.hasSuffix("\n") { lines.removeLast() }  // the last line may be cut
        guard lines.count >= 2 else { return false }
        for delimiter in [",", ";", "\t"] as [Character] {
            let counts = lines.map { delimiterCount($0, delimiter) }
            guard let first = counts.first, first > 0 else { continue }
            let agreeing = counts.filter { $0 == first }.count
            if agreeing * 10 >= counts.count * 9 { return true }
        }
        return false
    }

    private static func delimiterCount(_ line: String, _ delimiter: Character) -> Int {
        var inQuotes = false
        var count = 0
        for character in line {
            if character == "\"" { inQuotes.toggle() } else if character == delimiter && !inQuotes { count += 1 }
        }
        return count
    }
}
