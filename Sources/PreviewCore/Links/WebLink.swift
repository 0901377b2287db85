import Foundation

/// A link a person sent, checked and put in its normal form: `http`/`https` only, no credentials
/// in it, a host, at most ``maxLength`` characters; lowercase scheme and host, no `www.`, no
/// default port, no fragment, no tracking parameters. The normal form is what makes the same link
/// sent twice one download, or one cached card.
package struct WebLink: Sendable, Equatable {
    /// The link (normalised).
    package let url: URL
    /// Its host, lowercase, without `www.`, a trailing dot or an IPv6 address's brackets.
    package let host: String
    package var normalized: String { url.absoluteString }

    /// The longest link accepted.
    package static let maxLength = 2048

    /// Query parameters that say who shared a link and from where, never what it is.
    static let trackingParameters: Set<String> = [
        "igsh", "igshid", "is_from_webapp", "sender_device", "sender_web_id", "is_copy_url",
        "share_app_id", "share_link_id", "share_item_id", "fbclid", "gclid", "_r", "_t", "si", "ref_src", "ref_url", "mc_cid", "mc_eid"
    ]

    /// - Parameter use: what is done with links, for the refusal of another scheme ("downloaded").
    package init(_ text: String, use: String) throws(PreviewError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PreviewError(.badRequest, "The link is empty.") }
        guard trimmed.count <= Self.maxLength else {
            throw PreviewError(.badRequest, "The link is longer than \(Self.maxLength) characters.")
        }
        guard var parts = URLComponents(string: trimmed), let scheme = parts.scheme?.lowercased() else {
            throw PreviewError(.badRequest, "This is not a link.")
        }
        guard scheme == "http" || scheme == "https" else { throw PreviewError(.badRequest, "Only http and https links can be \(use).") }
        guard parts.user == nil, parts.password == nil else {
            throw PreviewError(.badRequest, "Links with a user name or password are not accepted.")
        }
        guard var host = parts.host?.lowercased(), !host.isEmpty else { throw PreviewError(.badRequest, "The link has no host.") }
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("www.") { host.removeFirst(4) }
        parts.scheme = scheme
        parts.host = host
        if parts.port == (scheme == "https" ? 443 : 80) { parts.port = nil }
        parts.fragment = nil
        if parts.path.isEmpty { parts.path = "/" }
        let kept = (parts.queryItems ?? []).filter { item in
            let name = item.name.lowercased()
            return !name.hasPrefix("utm_") && !Self.trackingParameters.contains(name)
        }
        parts.queryItems = kept.isEmpty ? nil : kept
        guard let url = parts.url else { throw PreviewError(.badRequest, "This is not a link.") }
        self.url = url
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether `host` is one of `domains` or below one.
    package static func matches(_ host: String, _ domains: [String]) -> Bool {
        domains.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}
