/// Recognises text (see ``TextDecoding``) and, within it, HTML, SVG, XML and CSV. Binary data returns nil.
enum TextSniffer {
    static func detect(_ head: [UInt8], isWholeFile: Bool) -> FileKind? {
        guard let (text, encoding) = TextDecoding.decode(head, isWholeFile: isWholeFile) else { return nil }
        let start = String(text.prefix(4096))
        // Markup is recognised in the ASCII-compatible encodings; UTF-16 text stays text.
        if encoding == .utf8 || encoding == .windows1252, let markup = markupKind(start) { return markup }
        return looksLikeCSV(start) ? .csv : .text
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
