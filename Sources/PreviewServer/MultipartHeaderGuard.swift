import NIOCore

/// Refuses what MultipartKit 4.7.1's parser traps on instead of refusing: a byte above 0x7F in a
/// part's header name (its table of allowed name characters has 128 entries, indexed by the byte).
/// It looks for every `--boundary` the body holds (a superset of the delimiters the parser finds)
/// and, after each, follows the header lines up to the empty one, refusing a byte above 0x7F
/// before a line's colon. A header's value (a file name in UTF-8) is left to the parser.
struct MultipartHeaderGuard {
    private enum Place {
        case body, delimiterLine, lineStart, name, value, headersEnd
    }

    private let delimiter: [UInt8]
    /// Knuth–Morris–Pratt: for each prefix of the delimiter, the longest proper prefix that is also its suffix.
    private let fallback: [Int]
    private var matched = 0
    private var place = Place.body

    init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
        var fallback = [0]
        var length = 0
        for index in delimiter.indices.dropFirst() {
            while length > 0, delimiter[index] != delimiter[length] { length = fallback[length - 1] }
            if delimiter[index] == delimiter[length] { length += 1 }
            fallback.append(length)
        }
        self.fallback = fallback
    }

    /// Whether the parser may read `bytes`, the body's next ones.
    mutating func admits(_ bytes: ByteBuffer) -> Bool {
        let view = bytes.readableBytesView
        var index = view.startIndex
        while index < view.endIndex {
            // Most of a body is a file's bytes: no delimiter starts before the next "-".
            if place == .body, matched == 0 {
                guard let dash = view[index...].firstIndex(of: delimiter[0]) else { return true }
                index = dash
            }
            let byte = view[index]
            index += 1
            switch place {
            case .body:
                while matched > 0, byte != delimiter[matched] { matched = fallback[matched - 1] }
                if byte == delimiter[matched] { matched += 1 }
                if matched == delimiter.count { (matched, place) = (0, .delimiterLine) }
            case .delimiterLine:
                if byte == .newline { place = .lineStart }
            case .lineStart, .name:
                if byte >= 0x80 { return false }
                switch byte {
                case .carriageReturn where place == .lineStart: place = .headersEnd
                case .colon: place = .value
                case .newline: place = .lineStart
                default: place = .name
                }
            case .value:
                if byte == .newline { place = .lineStart }
            case .headersEnd:
                place = .body
            }
        }
        return true
    }
}

private extension UInt8 {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let colon = UInt8(ascii: ":")
}
