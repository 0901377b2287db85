import Foundation

/// A link sent to be downloaded, checked and normalised: `http`/`https` only, no credentials in it,
/// a host of the supported sites (``DownloadSettings``), at most ``DownloadSettings/maxLinkLength``
/// characters. Its normal form (lowercase scheme and host, no `www.`, no default port, no fragment,
/// no tracking parameters) is what makes a client's retries one download.
package struct DownloadLink: Sendable, Equatable {
    /// How the link is fetched.
    package enum Route: String, Sendable, Codable {
        /// A social site's page: resolved by `yt-dlp`'s extractor for that site.
        case extractor
        /// A configured host: fetched by us; a page that is not media goes to the generic extractor.
        case direct
    }

    /// The link to fetch (normalised).
    package let url: URL
    package let route: Route
    package var normalized: String { url.absoluteString }

    /// Query parameters that say who shared a link and from where, never which video.
    static let trackingParameters: Set<String> = [
        "igsh", "igshid", "is_from_webapp", "sender_device", "sender_web_id", "is_copy_url",
        "share_app_id", "share_link_id", "share_item_id", "fbclid", "gclid", "_r", "_t", "si"
    ]

    package init(_ text: String, settings: DownloadSettings) throws(PreviewError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PreviewError(.badRequest, "The link is empty.") }
        guard trimmed.count <= DownloadSettings.maxLinkLength else {
            throw PreviewError(.badRequest, "The link is longer than \(DownloadSettings.maxLinkLength) characters.")
        }
        guard var parts = URLComponents(string: trimmed), let scheme = parts.scheme?.lowercased() else {
            throw PreviewError(.badRequest, "This is not a link.")
        }
        guard scheme == "http" || scheme == "https" else { throw PreviewError(.badRequest, "Only http and https links can be downloaded.") }
        guard parts.user == nil, parts.password == nil else {
            throw PreviewError(.badRequest, "Links with a user name or password are not accepted.")
        }
        guard var host = parts.host?.lowercased(), !host.isEmpty else { throw PreviewError(.badRequest, "The link has no host.") }
        if host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("www.") { host.removeFirst(4) }
        let bareHost = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let route: Route
        if Self.matches(bareHost, DownloadSettings.socialDomains) {
            route = .extractor
        } else if Self.matches(bareHost, settings.domains) {
            route = .direct
        } else {
            throw PreviewError(.unsupportedSite, "Links from \(bareHost) are not supported; send a TikTok or Instagram link.")
        }
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
        self.route = route
    }

    /// Whether `host` is one of `domains` or below one.
    static func matches(_ host: String, _ domains: [String]) -> Bool {
        domains.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}
