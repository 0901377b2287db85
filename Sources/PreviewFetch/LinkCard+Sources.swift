import Foundation
import PreviewCore

/// The card's other sources than the page's tags: a site's oEmbed answer and `yt-dlp`'s reading of
/// the link, and how cards from several sources become one.
extension LinkCard {
    /// The card an oEmbed answer (`{"type", "title", "author_name", "author_url", "thumbnail_url",
    /// "html"…}`) makes of `url`: for a post quoted in its `html` (X's), the post's text and date.
    package init?(oEmbed object: [String: Any], url: URL, site: LinkSite) {
        let text = { (key: String) in Self.text(object[key]) }
        let number = { (key: String) in Self.whole(object[key]) ?? text(key).flatMap { Int($0) } }
        let quote = text("html").map { PageMetadata(html: Array($0.utf8)).quote } ?? nil
        guard text("title") != nil || text("author_name") != nil || quote != nil else { return nil }
        self.url = url.absoluteString
        canonicalURL = url.absoluteString
        self.site = text("provider_name") ?? Self.host(of: url)
        title = text("title").map { Self.cut($0, Self.maxTitle) }
        self.text = quote?.paragraph.map { Self.cut($0, Self.maxText) }
        let handle = text("author_url").flatMap(URL.init(string:)).flatMap(Self.handle(in:))
        author = text("author_name") == nil && handle == nil ? nil : Author(name: text("author_name"), handle: handle)
        publishedAt = quote.flatMap { Self.quotedDate($0.text) }
        let kindOfAnswer = text("type")  // video, photo, rich or link
        let type = kindOfAnswer == "video" ? "video" : "image"
        let thumbnail = text("thumbnail_url").flatMap { Self.web(URL(string: $0, relativeTo: url)?.absoluteURL) }
        media =
            thumbnail == nil && type != "video"
            ? []
            : [
                Media(
                    type: type, width: number(type == "video" ? "width" : "thumbnail_width"),
                    height: number(type == "video" ? "height" : "thumbnail_height"), thumbnail: thumbnail)
            ]
        source = .oembed
        kind = Self.kind(of: url, site: site) ?? (kindOfAnswer == "video" ? .video : kindOfAnswer == "photo" ? .image : .article)
        // A post has no title of its own: its author's, as the site shows it ("Coach Rivera on Twitter").
        if title == nil, quote != nil, let name = author?.name ?? author?.handle { title = Self.cut("\(name) on \(self.site)", Self.maxTitle) }
    }

    /// The card `yt-dlp`'s `--dump-json` object makes of `url`.
    package init?(extracted info: [String: Any], url: URL, site: LinkSite) {
        let text = { (key: String) in Self.text(info[key]) }
        let number = { (key: String) in info[key] as? Double ?? (info[key] as? Int).map(Double.init) }
        guard let title = text("title") ?? text("fulltitle") else { return nil }
        self.url = url.absoluteString
        canonicalURL = text("webpage_url").flatMap { Self.web(URL(string: $0)) } ?? url.absoluteString
        self.site = text("extractor_key").map { $0 == "Generic" ? Self.host(of: url) : $0 } ?? Self.host(of: url)
        self.title = Self.cut(title, Self.maxTitle)
        self.text = text("description").map { Self.cut($0, Self.maxText) }
        let name = text("uploader") ?? text("channel") ?? text("creator")
        let handle = (text("uploader_id") ?? text("channel_id")).map { $0.hasPrefix("@") || site == .youtube ? $0 : "@" + $0 }
        author = name == nil && handle == nil ? nil : Author(name: name, handle: handle)
        publishedAt =
            number("timestamp").flatMap { (0...1e10).contains($0) ? Date(timeIntervalSince1970: $0).formatted(.iso8601) : nil }
            ?? text("upload_date").flatMap(Self.compactDate)
        let hasVideo =
            info["duration"] != nil || text("vcodec").map { $0 != "none" } ?? false
            || text("ext").map { ["mp4", "webm", "mov"].contains($0) } ?? false
        media = [
            Media(
                type: hasVideo ? "video" : "image", width: Self.whole(info["width"]), height: Self.whole(info["height"]),
                thumbnail: text("thumbnail").flatMap { Self.web(URL(string: $0)) }, duration: Self.seconds(info["duration"]))
        ]
        source = .ytDLP
        kind = Self.kind(of: url, site: site) ?? (hasVideo ? .video : .post)
    }

    /// This card with what it lacks taken from `other`: each empty field, the picture and the
    /// video's facts; a title read only from `<title>` gives way to `other`'s.
    package func filled(from other: LinkCard?) -> LinkCard {
        guard let other else { return self }
        var card = self
        if card.source == .title, let title = other.title {
            card.title = title
            card.source = other.source
        }
        card.title = card.title ?? other.title
        card.text = card.text ?? other.text
        card.publishedAt = card.publishedAt ?? other.publishedAt
        if let author = other.author {
            card.author = Author(name: card.author?.name ?? author.name, handle: card.author?.handle ?? author.handle)
        }
        if card.canonicalURL == card.url { card.canonicalURL = other.canonicalURL }
        if card.media.isEmpty {
            card.media = other.media
        } else if let theirs = other.media.first {
            card.media[0].thumbnail = card.media[0].thumbnail ?? theirs.thumbnail
            card.media[0].width = card.media[0].width ?? theirs.width
            card.media[0].height = card.media[0].height ?? theirs.height
            card.media[0].duration = card.media[0].duration ?? theirs.duration
            if theirs.type == "video" && other.kind == .video { card.media[0].type = "video" }
        }
        if card.kind == .article && other.kind != .article { card.kind = other.kind }
        return card
    }

    /// A JSON number as a whole number, when it is one a card may hold (no trap on 1e300 or NaN).
    static func whole(_ value: Any?) -> Int? {
        guard let number = value as? Int ?? (value as? Double).flatMap({ Int(exactly: $0.rounded()) }) else { return nil }
        return (0...1_000_000).contains(number) ? number : nil
    }

    /// `@name` from a profile's address (`https://twitter.com/name`, `https://www.tiktok.com/@name`).
    static func handle(in url: URL) -> String? {
        guard let first = url.path.split(separator: "/").first, !first.isEmpty else { return nil }
        return first.hasPrefix("@") ? String(first) : "@" + first
    }

    /// The date a quoted post ends with (X's embed: "— Name (@name) November 3, 2026"), as `2026-11-03`.
    static func quotedDate(_ quote: String) -> String? {
        guard let line = quote.split(whereSeparator: \.isNewline).last else { return nil }
        let words = line.split(separator: " ")
        guard words.count >= 3 else { return nil }
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = TimeZone(identifier: "UTC")
        parser.dateFormat = "MMMM d, yyyy"
        guard let date = parser.date(from: words.suffix(3).joined(separator: " ")) else { return nil }
        return date.formatted(.iso8601.year().month().day())
    }

    /// `20261103` as `2026-11-03`.
    static func compactDate(_ text: String) -> String? {
        guard text.count == 8, text.allSatisfy(\.isNumber) else { return nil }
        return "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.suffix(2))"
    }
}
