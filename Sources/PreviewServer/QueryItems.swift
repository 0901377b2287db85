import Foundation
import Hummingbird
import PreviewCore
import PreviewDomain
import PreviewStore

/// The query strings of our own links and clients: names as they are (ours), values percent-encoded
/// but for the unreserved characters, so a stranger's text (a title, a highlight) stays one value
/// and reads back the same by the form rules (``QueryFields``).
package enum QueryItems {
    private static let unreserved = CharacterSet.asciiAlphanumerics.union(.init(charactersIn: "-._~"))

    /// `name=value&…`, each value encoded.
    package static func encoded(_ items: [(String, String)]) -> String {
        items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }
}

extension Request {
    /// The query items of a listing (`GET /v1/documents`, the List page) as a ``DocumentQuery``.
    package func documentQuery() throws -> DocumentQuery {
        let items = queryFields
        func parsed<T>(_ name: String, _ parse: (String) -> T?, expected: String) throws -> T? {
            guard let text = items.get(name) else { return nil }
            guard let value = parse(text) else { throw APIError.badRequest("\(name) must be \(expected)") }
            return value
        }
        let sort = try parsed("sort", DocumentQuery.Sort.init(rawValue:), expected: "newest, oldest, title, type or most_shared") ?? .newest
        let limit = try number("limit", in: 1...DocumentQuery.maxLimit, default: 50)
        let status = try parsed("status", PreviewStatus.init(rawValue:), expected: "pending, ready, no_preview or failed")
        let shared = try parsed("shared", { ["true": true, "false": false][$0] }, expected: "true or false")
        let cursor = try parsed(
            "cursor", { DocumentCursor(token: $0, sort: sort) },
            expected: "a next_cursor this listing returned, with the same sort")
        return DocumentQuery(
            owner: try filter("owner"), type: try filter("type", emptyIsNone: false), kind: try filter("kind"),
            school: try filter("school"), containing: try filter("q"), status: status, shared: shared, sort: sort,
            limit: limit, after: cursor)
    }

    /// Query item `name` as a listing filter (an owner, a type, a text): nil when absent, and when
    /// empty if `emptyIsNone`; `bad_request` for a value ``DocumentLabels`` refuses.
    func filter(_ name: String, emptyIsNone: Bool = true) throws -> String? {
        guard let value = queryFields.get(name), !(emptyIsNone && value.isEmpty) else { return nil }
        try DocumentLabels.checkFilter(value, named: name)
        return value
    }

    /// `version=N` of a delete (optional) or a restore (`required`): a version number, 1 or more.
    package func versionNumber(required: Bool) throws -> Int? {
        guard let text = queryFields.get("version") else {
            if required { throw APIError.badRequest("version must be a version number (1 or more)") }
            return nil
        }
        guard let number = Int(text), number >= 1 else { throw APIError.badRequest("version must be a version number (1 or more)") }
        return number
    }

    /// Query item `name` as a number in `range`; `value` when absent, `bad_request` otherwise.
    func number(_ name: String, in range: ClosedRange<Int>, default value: Int) throws -> Int {
        guard let asked = queryFields.get(name) else { return value }
        guard let number = Int(asked), range.contains(number) else { throw APIError.badRequest("\(name) must be in \(range)") }
        return number
    }
}

/// A URL's query fields, read by the `application/x-www-form-urlencoded` rules (`a=1&b=x+y`): `+`
/// is a space and `%2B` a plus, as browsers' forms, `URLSearchParams` and every client library write
/// them; a value whose escapes are not UTF-8 is kept as it was sent. Hummingbird's
/// `URI.queryParameters` is not used for them: it leaves `+` a plus and keys undecoded. A posted
/// form's body is read by Hummingbird's `URLEncodedFormDecoder` (``PostedForm``).
package struct QueryFields {
    let items: [(name: String, value: String)]

    package init(_ encoded: String) {
        items = encoded.split(separator: "&").map { (pair: Substring) -> (name: String, value: String) in
            guard let equals = pair.firstIndex(of: "=") else { return (Self.decoded(pair), "") }
            return (Self.decoded(pair[..<equals]), Self.decoded(pair[pair.index(after: equals)...]))
        }
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// The first value of `name`, if any.
    package func get(_ name: String) -> String? { items.first { $0.name == name }?.value }

    package subscript(name: String) -> String? { self.get(name) }
}

extension Request {
    /// The query's fields, decoded by the form rules (``QueryFields``): what every route reads.
    package var queryFields: QueryFields { QueryFields(uri.query ?? "") }
}

/// A posted form's body (`application/x-www-form-urlencoded`) decoded by Hummingbird's
/// `URLEncodedFormDecoder` into `Fields`; a body that is no such form decodes to nothing (`nil`), so
/// its fields count as absent.
package enum PostedForm {
    package static func decode<Fields: Decodable>(_ type: Fields.Type, from body: ByteBuffer) -> Fields? {
        try? URLEncodedFormDecoder().decode(Fields.self, from: String(buffer: body))
    }
}
