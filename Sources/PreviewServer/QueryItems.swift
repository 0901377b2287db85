import Foundation
import Hummingbird
import PreviewCore

/// The query strings of our own links and clients: names as they are (ours), values percent-encoded
/// but for the unreserved characters, so a stranger's text (a title, a highlight) stays one value
/// and reads back the same by the form rules (``FormFields``).
public enum QueryItems {
    private static let unreserved = CharacterSet.asciiAlphanumerics.union(.init(charactersIn: "-._~"))

    /// `name=value&…`, each value encoded.
    public static func encoded(_ items: [(String, String)]) -> String {
        items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }
}

extension Request {
    /// Query item `name` as a listing filter (an owner, a type, a text): nil when absent, and when
    /// empty if `emptyIsNone`; `bad_request` for a value ``DocumentLabels`` refuses.
    func filter(_ name: String, emptyIsNone: Bool = true) throws -> String? {
        guard let value = queryFields.get(name), !(emptyIsNone && value.isEmpty) else { return nil }
        try DocumentLabels.checkFilter(value, named: name)
        return value
    }

    /// Query item `name` as a number in `range`; `value` when absent, `bad_request` otherwise.
    func number(_ name: String, in range: ClosedRange<Int>, default value: Int) throws -> Int {
        guard let asked = queryFields.get(name) else { return value }
        guard let number = Int(asked), range.contains(number) else { throw APIError.badRequest("\(name) must be in \(range)") }
        return number
    }
}

/// Fields encoded as `application/x-www-form-urlencoded` has them, a URL's query or a form's body
/// (`a=1&b=x+y`): `+` is a space and `%2B` a plus, as browsers' forms, `URLSearchParams` and every
/// client library write them. A value whose escapes are not UTF-8 is kept as it was sent.
struct FormFields {
    let items: [(name: String, value: String)]

    init(_ encoded: String) {
        items = encoded.split(separator: "&").map { (pair: Substring) -> (name: String, value: String) in
            guard let equals = pair.firstIndex(of: "=") else { return (Self.decoded(pair), "") }
            return (Self.decoded(pair[..<equals]), Self.decoded(pair[pair.index(after: equals)...]))
        }
    }

    init(_ body: ByteBuffer) {
        self.init(String(buffer: body))
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The first value of `name`, if any.
    func get(_ name: String) -> String? { items.first { $0.name == name }?.value }

    subscript(name: String) -> String? { self.get(name) }
}

extension Request {
    /// The query's fields, decoded by the form rules (``FormFields``): what every route reads.
    var queryFields: FormFields { FormFields(uri.query ?? "") }
}
