import Foundation
import Hummingbird
import PreviewCore

/// The query strings of our own links: names as they are (ours), values percent-encoded but for
/// the unreserved characters, so a stranger's text (a title, a highlight) stays one value.
enum QueryItems {
    private static let unreserved = CharacterSet.asciiAlphanumerics.union(.init(charactersIn: "-._~"))

    /// `name=value&…`, each value encoded.
    static func encoded(_ items: [(String, String)]) -> String {
        items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }
}

extension Request {
    /// Query item `name` as a listing filter (an owner, a type, a text): nil when absent, and when
    /// empty if `emptyIsNone`; `bad_request` for a value ``DocumentLabels`` refuses.
    func filter(_ name: String, emptyIsNone: Bool = true) throws -> String? {
        guard let value = uri.queryParameters.get(name), !(emptyIsNone && value.isEmpty) else { return nil }
        try DocumentLabels.checkFilter(value, named: name)
        return value
    }

    /// Query item `name` as a number in `range`; `value` when absent, `bad_request` otherwise.
    func number(_ name: String, in range: ClosedRange<Int>, default value: Int) throws -> Int {
        guard let asked = uri.queryParameters.get(name) else { return value }
        guard let number = Int(asked), range.contains(number) else { throw APIError.badRequest("\(name) must be in \(range)") }
        return number
    }
}
