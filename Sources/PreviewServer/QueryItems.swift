import Foundation

/// The query strings of our own links: names as they are (ours), values percent-encoded but for
/// the unreserved characters, so a stranger's text (a title, a highlight) stays one value.
enum QueryItems {
    private static let unreserved = CharacterSet.asciiAlphanumerics.union(.init(charactersIn: "-._~"))

    /// `name=value&…`, each value encoded.
    static func encoded(_ items: [(String, String)]) -> String {
        items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }
}
