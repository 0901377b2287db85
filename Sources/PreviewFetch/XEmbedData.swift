import Foundation
import PreviewCore

/// X's embed data: what its embed widget reads of a post (`cdn.syndication.twimg.com/tweet-result`),
/// the text, the author and date, and the photos and video a post's oEmbed answer leaves out. The
/// widget asks with the post's id and a token its script makes of the id, which ``token(of:)`` makes
/// the same way.
package enum XEmbedData {
    /// The post's id in an X address (`/NAME/status/ID`), or nil.
    package static func postID(in url: URL) -> String? {
        let parts = url.path.split(separator: "/")
        guard let at = parts.firstIndex(of: "status"), at + 1 < parts.count else { return nil }
        let id = parts[at + 1]
        return (1...20).contains(id.count) && id.allSatisfy(\.isASCII) && id.allSatisfy(\.isNumber) ? String(id) : nil
    }

    /// The widget's token: `((Number(id) / 1e15) * Math.PI).toString(36)` without its zeros and point.
    package static func token(of id: String) -> String? {
        guard let number = Double(id), number.isFinite else { return nil }
        return radix36((number / 1e15) * Double.pi).filter { $0 != "0" && $0 != "." }
    }

    /// `value` (finite, at least 0, below 2⁵³) in base 36 as JavaScript's `Number.prototype.toString(36)`
    /// writes it: the fraction's digits only as far as the double's own precision, rounded to even.
    package static func radix36(_ value: Double) -> String {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var integer = value.rounded(.down)
        var fraction = value - integer
        var delta = max(Double.leastNonzeroMagnitude, 0.5 * (value.nextUp - value))
        var written: [Int] = []
        if fraction >= delta {
            repeat {
                fraction *= 36
                delta *= 36
                let digit = Int(fraction)
                written.append(digit)
                fraction -= Double(digit)
                if fraction > 0.5 || (fraction == 0.5 && digit & 1 == 1), fraction + delta > 1 {
                    // Rounded up: carry back through the digits written.
                    while let last = written.popLast() {
                        if last + 1 < 36 {
                            written.append(last + 1)
                            break
                        }
                    }
                    if written.isEmpty { integer += 1 }
                    break
                }
            } while fraction >= delta
        }
        var whole: [Character] = []
        repeat {
            let remainder = integer.truncatingRemainder(dividingBy: 36)
            whole.insert(digits[Int(remainder)], at: 0)
            integer = (integer - remainder) / 36
        } while integer > 0
        return String(whole) + (written.isEmpty ? "" : "." + String(written.map { digits[$0] }))
    }
}

extension LinkCard {
    /// The card X's embed data (`{"text", "created_at", "user": {"name", "screen_name"},
    /// "mediaDetails": [{"type", "media_url_https", "original_info", "video_info"}], "photos", "video"}`)
    /// makes of `url`.
    package init?(xEmbed data: [String: Any], url: URL) {
        let text = { (object: [String: Any]?, key: String) in Self.text(object?[key]) }
        let user = data["user"] as? [String: Any]
        guard let said = text(data, "text") ?? text(data, "full_text") else { return nil }
        self.url = url.absoluteString
        canonicalURL = url.absoluteString
        site = "X"
        kind = .post
        source = .oembed
        author = Author(name: text(user, "name"), handle: text(user, "screen_name").map { "@" + $0 })
        title = author?.name.map { Self.cut("\($0) on X", Self.maxTitle) }
        self.text = Self.cut(said, Self.maxText)
        publishedAt = text(data, "created_at")
        let details = (data["mediaDetails"] as? [[String: Any]])?.first
        let size = details?["original_info"] as? [String: Any]
        let video = details.map { text($0, "type") == "video" || text($0, "type") == "animated_gif" } ?? false
        let milliseconds = ((details?["video_info"] as? [String: Any])?["duration_millis"]).flatMap(Self.seconds)
        media =
            details.map {
                [
                    Media(
                        type: video ? "video" : "image", width: Self.whole(size?["width"]), height: Self.whole(size?["height"]),
                        thumbnail: text($0, "media_url_https").flatMap { Self.web(URL(string: $0)) }, duration: milliseconds.map { $0 / 1000 })
                ]
            } ?? []
    }
}
