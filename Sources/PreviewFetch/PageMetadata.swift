internal import CHTML
import Foundation

/// What a web page's markup says about itself: its `<meta>` tags (Open Graph's `og:…`, Twitter's
/// `twitter:…`, `description`, `author`…), its `<link>`s (canonical, oEmbed discovery), its title,
/// its JSON-LD blocks, its `<base>` and its first `<blockquote>` (an embed's post). Read by libxml2's HTML parser as a stream
/// (`docpreview_html_read`), never by patterns over the markup.
package struct PageMetadata: Sendable, Equatable {
    package struct Meta: Sendable, Equatable {
        /// `property`, else `name`, else `itemprop`, lower-cased.
        package var key: String
        package var content: String
    }

    package struct Link: Sendable, Equatable {
        package var rel: String
        package var href: String
        package var type: String?
    }

    /// A quoted post (an embed's `<blockquote>`): its first paragraph, and all its text.
    package struct Quote: Sendable, Equatable {
        package var paragraph: String?
        package var text: String
    }

    package var metas: [Meta] = []
    package var links: [Link] = []
    package var title: String?
    package var jsonLD: [String] = []
    package var base: String?
    package var quote: Quote?

    /// The most items read of one page (tags past it are not looked at).
    package static let maxItems: Int32 = 400
    /// The longest title or JSON-LD block kept, in bytes.
    package static let maxText = 64 * 1024

    package init() {}

    /// What `html` (a page's bytes, as its server sent them) says about itself: read as UTF-8 when
    /// they are valid UTF-8, else as the page declares (or ISO-8859-1).
    package init(html: [UInt8]) {
        var read = PageMetadata()
        let utf8: Int32 = String(validating: html, as: UTF8.self) != nil ? 1 : 0
        withUnsafeMutablePointer(to: &read) { target in
            html.withUnsafeBufferPointer { bytes in
                guard let start = bytes.baseAddress else { return }
                start.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                    _ = docpreview_html_read(characters, bytes.count, utf8, Self.maxItems, Self.maxText, Self.collect, target)
                }
            }
        }
        self = read
    }

    /// The first content of `key`, trimmed; nil when absent or empty.
    package func meta(_ key: String) -> String? {
        metas.lazy.filter { $0.key == key }.map { $0.content.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
    }

    /// The first link whose `rel` holds `rel` (and whose type is `type`, when given).
    package func link(rel: String, type: String? = nil) -> Link? {
        links.first { link in
            link.rel.lowercased().split(separator: " ").contains { $0 == rel } && (type == nil || link.type?.lowercased() == type)
        }
    }

    /// Adds each item the parser reads to the `PageMetadata` that `context` points to.
    private static let collect: docpreview_html_emit = { context, item, first, second, third in
        guard let target = context?.assumingMemoryBound(to: PageMetadata.self) else { return }
        let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        switch UInt32(bitPattern: item) {
        case DOCPREVIEW_HTML_META.rawValue:
            if let key = text(first), let content = text(second) { target.pointee.metas.append(Meta(key: key, content: content)) }
        case DOCPREVIEW_HTML_LINK.rawValue:
            if let href = text(second) { target.pointee.links.append(Link(rel: text(first) ?? "", href: href, type: text(third))) }
        case DOCPREVIEW_HTML_TITLE.rawValue:
            target.pointee.title = text(first)
        case DOCPREVIEW_HTML_JSON_LD.rawValue:
            if let block = text(first) { target.pointee.jsonLD.append(block) }
        case DOCPREVIEW_HTML_QUOTE.rawValue:
            if let whole = text(second) { target.pointee.quote = Quote(paragraph: text(first), text: whole) }
        case DOCPREVIEW_HTML_BASE.rawValue:
            if target.pointee.base == nil { target.pointee.base = text(first) }
        default:
            break
        }
    }
}
