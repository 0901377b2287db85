import Foundation
import PreviewCore

/// What a link is, as a card shows it: its title, text, author, date and pictures, read from what
/// its page says about itself (``PageMetadata``), each field from the first source that has it:
/// Open Graph, then Twitter's card tags, then JSON-LD, then the page's own `<title>` and
/// `description`. Only `http` and `https` addresses are kept, resolved against the page's.
package struct LinkCard: Sendable, Equatable, Codable {
    package enum Kind: String, Sendable, Codable {
        case post, video, profile, article, image, file
    }

    /// Where the card's title came from.
    package enum Source: String, Sendable, Codable {
        case opengraph, oembed, jsonLD = "json-ld", twitterCard = "twitter-card", ytDLP = "yt-dlp", title
    }

    package struct Author: Sendable, Equatable, Codable {
        package var name: String?
        /// `@handle`, as the site writes it.
        package var handle: String?

        package init(name: String?, handle: String?) {
            (self.name, self.handle) = (name, handle)
        }
    }

    package struct Media: Sendable, Equatable, Codable {
        /// `image` or `video`.
        package var type: String
        package var width: Int?
        package var height: Int?
        /// The picture's address (the page's own; the service keeps its own copy).
        package var thumbnail: String?
        /// Seconds, for a video.
        package var duration: Double?

        package init(type: String, width: Int? = nil, height: Int? = nil, thumbnail: String? = nil, duration: Double? = nil) {
            (self.type, self.width, self.height, self.thumbnail, self.duration) = (type, width, height, thumbnail, duration)
        }
    }

    package var url: String
    package var canonicalURL: String
    package var site: String
    package var kind: Kind
    package var title: String?
    package var text: String?
    package var author: Author?
    package var publishedAt: String?
    package var media: [Media]
    package var source: Source

    enum CodingKeys: String, CodingKey {
        case url, site, kind, title, text, author, media, source
        case canonicalURL = "canonical_url"
        case publishedAt = "published_at"
    }

    /// The longest title and text kept, in characters.
    package static let maxTitle = 300
    package static let maxText = 1000

    package init(
        url: String, canonicalURL: String, site: String, kind: Kind, title: String?, text: String?, author: Author?, publishedAt: String?,
        media: [Media], source: Source
    ) {
        (self.url, self.canonicalURL, self.site, self.kind, self.title, self.text) = (url, canonicalURL, site, kind, title, text)
        (self.author, self.publishedAt, self.media, self.source) = (author, publishedAt, media, source)
    }

    /// The card of the page at `url` (of `site`, by default the one its host says) whose markup says `page`.
    package init(_ page: PageMetadata, url: URL, site linkSite: LinkSite? = nil) {
        let linked = JSONLinkedData(page.jsonLD)
        let base = page.base.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } ?? url
        let address = { (text: String?) in text.flatMap { Self.web(URL(string: $0, relativeTo: base)?.absoluteURL) } }

        self.url = url.absoluteString
        canonicalURL = address(page.meta("og:url")) ?? address(page.link(rel: "canonical")?.href) ?? url.absoluteString
        site = page.meta("og:site_name") ?? Self.host(of: url)
        let titled: [(String?, Source)] = [
            (page.meta("og:title"), .opengraph), (page.meta("twitter:title"), .twitterCard), (linked.title, .jsonLD),
            (Self.text(page.title), .title)
        ]
        let chosen = titled.first { $0.0 != nil }
        title = chosen?.0.map { Self.cut($0, Self.maxTitle) }
        source = chosen?.1 ?? .title
        text = (page.meta("og:description") ?? page.meta("twitter:description") ?? linked.description ?? page.meta("description"))
            .map { Self.cut($0, Self.maxText) }
        let name = linked.author ?? page.meta("author") ?? page.meta("article:author").flatMap { address($0) == nil ? $0 : nil }
        let handle = page.meta("twitter:creator")
        author = name == nil && handle == nil ? nil : Author(name: name, handle: handle)
        publishedAt =
            page.meta("article:published_time") ?? page.meta("og:published_time") ?? linked.published
            ?? page.meta("date") ?? page.meta("uploaddate")

        var media: [Media] = []
        if address(page.meta("og:video:secure_url") ?? page.meta("og:video:url") ?? page.meta("og:video")) ?? linked.video != nil {
            media.append(
                Media(
                    type: "video", width: page.meta("og:video:width").flatMap(Int.init), height: page.meta("og:video:height").flatMap(Int.init),
                    thumbnail: nil,
                    duration: Self.seconds(page.meta("video:duration") ?? page.meta("og:video:duration"))
                        ?? page.meta("duration").flatMap(Self.seconds(iso8601:)) ?? linked.duration))
        }
        if let image = address(page.meta("og:image:secure_url") ?? page.meta("og:image") ?? page.meta("og:image:url"))
            ?? address(page.meta("twitter:image") ?? page.meta("twitter:image:src")) ?? address(linked.image)
        {
            if media.isEmpty {
                media.append(
                    Media(
                        type: "image", width: page.meta("og:image:width").flatMap(Int.init), height: page.meta("og:image:height").flatMap(Int.init),
                        thumbnail: image))
            } else {
                media[0].thumbnail = image
            }
        }
        self.media = media
        kind = Self.kind(
            of: url, site: linkSite ?? LinkPreviewSettings().site(of: Self.host(of: url)), openGraph: page.meta("og:type"),
            twitter: page.meta("twitter:card"), linked: linked.type, media: media)
    }

    /// What the link is: by its site's own shape of address first (a post on X or Instagram, a video
    /// on TikTok, YouTube or Hudl), then by what the page says it is.
    static func kind(of url: URL, site: LinkSite, openGraph: String?, twitter: String?, linked: String?, media: [Media]) -> Kind {
        if let kind = kind(of: url, site: site) { return kind }
        let type = (openGraph ?? "").lowercased()
        if type.hasPrefix("video") || twitter?.lowercased() == "player" { return .video }
        if type == "profile" { return .profile }
        if type == "article" { return .article }
        switch linked {
        case "VideoObject": return .video
        case "Person", "ProfilePage": return .profile
        case "SocialMediaPosting", "DiscussionForumPosting": return .post
        case "ImageObject": return .image
        default: break
        }
        return type.isEmpty && media.first?.type == "image" && twitter?.lowercased() == "summary_large_image" ? .image : .article
    }

    /// What a link of `site` is by its address alone, or nil where that does not say.
    static func kind(of url: URL, site: LinkSite) -> Kind? {
        let path = url.path.lowercased()
        let segments = path.split(separator: "/")
        switch site {
        case .x: return path.contains("/status/") ? .post : segments.count == 1 ? .profile : nil
        case .instagram: return path.hasPrefix("/reel/") || path.hasPrefix("/reels/") ? .video : path.hasPrefix("/p/") ? .post : nil
        case .tiktok: return path.contains("/video/") ? .video : segments.count == 1 && path.hasPrefix("/@") ? .profile : nil
        case .youtube:
            return path == "/watch" || path.hasPrefix("/shorts/") || path.hasPrefix("/embed/") || host(of: url) == "youtu.be" && segments.count == 1
                ? .video : nil
        case .hudl: return path.contains("/video/") ? .video : nil
        case .web: return nil
        }
    }

    /// Seconds written as a number: nil unless finite and 0 to 10⁷ (a card is written as JSON).
    static func seconds(_ value: Any?) -> Double? {
        guard let seconds = value as? Double ?? (value as? Int).map(Double.init) ?? (value as? String).flatMap(Double.init),
            seconds.isFinite, (0...1e7).contains(seconds)
        else { return nil }
        return seconds
    }

    /// Seconds of an ISO 8601 duration (`PT1M30S`, `PT2H`, `P0DT0H3M10S`); nil when it is not one.
    package static func seconds(iso8601 text: String) -> Double? {
        guard text.uppercased().hasPrefix("P") else { return nil }
        var total = 0.0
        var number = ""
        var inTime = false
        for character in text.uppercased().dropFirst() {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            case "D", "H", "M", "S":
                guard let value = Double(number) else { return nil }
                let unit: Double =
                    switch character {
                    case "D": 86_400
                    case "H": 3600
                    case "M": inTime ? 60 : 2_592_000
                    default: 1
                    }
                total += value * unit
                number = ""
            default: return nil
            }
        }
        return number.isEmpty ? seconds(total) : nil
    }

    /// A JSON value that is a text with something in it, trimmed; nil otherwise.
    static func text(_ value: Any?) -> String? {
        (value as? String).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `url` when it is an `http` or `https` address with a host, as text.
    static func web(_ url: URL?) -> String? {
        guard let url, ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else { return nil }
        return url.absoluteString
    }

    /// `url`'s host without a leading `www.`, lower-cased.
    static func host(of url: URL) -> String {
        let host = (url.host ?? "").lowercased()
        return host.hasPrefix("www.") ? String(host.dropFirst(4)) : host
    }

    /// `text` with its runs of white space made one space, cut to `limit` characters (an ellipsis at the cut).
    static func cut(_ text: String, _ limit: Int) -> String {
        let one = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return one.count > limit ? one.prefix(limit - 1) + "…" : one
    }
}

/// The first JSON-LD object of a kind a card knows (an article, a video, a post, a person, an
/// image), looked for in each block, its arrays and its `@graph`, and what it says.
struct JSONLinkedData {
    var type: String?
    var title: String?
    var description: String?
    var author: String?
    var published: String?
    var image: String?
    var video: String?
    var duration: Double?

    static let types: Set<String> = [
        "NewsArticle", "Article", "BlogPosting", "ReportageNewsArticle", "VideoObject", "SocialMediaPosting", "DiscussionForumPosting",
        "Person", "ProfilePage", "ImageObject", "WebPage"
    ]

    init(_ blocks: [String]) {
        for block in blocks {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(block.utf8), options: [.fragmentsAllowed]),
                let object = Self.first(in: parsed, depth: 0)
            else { continue }
            type = Self.types(of: object).first { Self.types.contains($0) }
            title = LinkCard.text(object["headline"]) ?? LinkCard.text(object["name"])
            description = LinkCard.text(object["description"])
            author = Self.name(object["author"]) ?? Self.name(object["creator"])
            published = LinkCard.text(object["datePublished"]) ?? LinkCard.text(object["uploadDate"])
            image = Self.address(object["thumbnailUrl"]) ?? Self.address(object["image"])
            video = Self.address(object["contentUrl"]) ?? Self.address(object["embedUrl"])
            duration = LinkCard.text(object["duration"]).flatMap(LinkCard.seconds(iso8601:))
            return
        }
    }

    /// The first object of a known type in `value`: itself, an element, or one of its `@graph`, at most 4 deep.
    private static func first(in value: Any, depth: Int) -> [String: Any]? {
        guard depth < 4 else { return nil }
        if let object = value as? [String: Any] {
            if types(of: object).contains(where: { types.contains($0) && $0 != "WebPage" }) { return object }
            if let graph = object["@graph"] { return first(in: graph, depth: depth + 1) }
            return types(of: object).contains("WebPage") ? object : nil
        }
        if let array = value as? [Any] {
            for element in array.prefix(50) { if let found = first(in: element, depth: depth + 1) { return found } }
        }
        return nil
    }

    private static func types(of object: [String: Any]) -> [String] {
        if let type = object["@type"] as? String { return [type] }
        return (object["@type"] as? [Any])?.compactMap { $0 as? String } ?? []
    }

    /// An author's name: a text, an object's `name`, or the first of an array's.
    private static func name(_ value: Any?) -> String? {
        if let array = value as? [Any] { return array.lazy.compactMap { name($0) }.first }
        return LinkCard.text(value) ?? LinkCard.text((value as? [String: Any])?["name"])
    }

    /// An address: a text, an object's `url`, or the first of an array's.
    private static func address(_ value: Any?) -> String? {
        if let array = value as? [Any] { return array.lazy.compactMap { address($0) }.first }
        let object = value as? [String: Any]
        return LinkCard.text(value) ?? LinkCard.text(object?["url"]) ?? LinkCard.text(object?["contentUrl"])
    }
}
