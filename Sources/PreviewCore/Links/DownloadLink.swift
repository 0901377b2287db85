import Foundation

/// A link sent to be downloaded: a ``WebLink`` to a host of the supported sites (``DownloadSettings``).
/// Its normal form is what makes a client's retries one download.
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

    package init(_ text: String, settings: DownloadSettings) throws(PreviewError) {
        let link = try WebLink(text, use: "downloaded")
        if WebLink.matches(link.host, DownloadSettings.socialDomains) {
            route = .extractor
        } else if WebLink.matches(link.host, settings.domains) {
            route = .direct
        } else {
            throw PreviewError(.unsupportedSite, "Links from \(link.host) are not supported; send a TikTok or Instagram link.")
        }
        url = link.url
    }
}
