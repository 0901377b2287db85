/// The few parts of S3's XML answers that are read: the text of named elements. S3's documents
/// are flat and machine-written; no entity but the five predefined ones occurs in them.
struct XMLText {
    let text: String

    init(_ bytes: [UInt8]) { text = String(decoding: bytes, as: UTF8.self) }
    init(_ text: String) { self.text = text }

    /// The text of the first `<name>` element, unescaped.
    func first(_ name: String) -> String? { contents(name, limit: 1).first.map(Self.unescape) }

    /// The raw contents of every `<name>` element, in order.
    func all(_ name: String) -> [String] { contents(name, limit: .max) }

    private func contents(_ name: String, limit: Int) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while found.count < limit, let open = rest.range(of: "<\(name)>"),
            let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex)
        {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&apos;")
    }

    /// The predefined entities and numeric references (`&#34;`, `&#x22;`) made characters again.
    static func unescape(_ text: String) -> String {
        guard text.contains("&#") else { return named(text) }
        var result = "", rest = text[...]
        while let start = rest.range(of: "&#"), let end = rest[start.upperBound...].firstIndex(of: ";") {
            result += rest[..<start.lowerBound]
            let number = rest[start.upperBound..<end]
            let value = number.hasPrefix("x") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
            result += value.flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? String(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        return named(result + rest)
    }

    private static func named(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
