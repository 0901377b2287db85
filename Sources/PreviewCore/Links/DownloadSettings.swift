/// Where shared links may lead and what fetching one may cost (`downloads` in the `--config` JSON:
/// `{"domains": ["media.example.org"], "fetch_seconds": 300, "max_bytes": 104857600}`).
package struct DownloadSettings: Sendable, Equatable, Decodable {
    /// The sites whose pages `yt-dlp` reads (and their short-link hosts): a link to one of them, or
    /// to a subdomain, is resolved by its extractor.
    package static let socialDomains = LinkSite.tiktok.hosts + LinkSite.instagram.hosts

    /// Other hosts links may name (direct media hosts, an IP address): fetched by us, and a page
    /// that is not media is handed to `yt-dlp`'s generic extractor (a `<video>` in the page).
    package var domains: [String] = []
    /// The whole fetch, resolving and redirects included; past it the fetch child is killed.
    package var fetchSeconds: Double = 300
    /// The largest download; nil for the upload limit (``Limits/maxFileBytes``).
    package var maxBytes: Int?

    package init(domains: [String] = [], fetchSeconds: Double = 300, maxBytes: Int? = nil) {
        self.domains = domains
        self.fetchSeconds = fetchSeconds
        self.maxBytes = maxBytes
    }

    enum CodingKeys: String, CodingKey {
        case domains
        case fetchSeconds = "fetch_seconds"
        case maxBytes = "max_bytes"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        domains = try container.decodeIfPresent([String].self, forKey: .domains)?.map { $0.lowercased() } ?? []
        fetchSeconds = try container.decodeIfPresent(Double.self, forKey: .fetchSeconds) ?? 300
        maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes)
    }

    /// What is wrong with these settings, or nil.
    package var problem: String? {
        if !(1...86_400).contains(fetchSeconds) { return "downloads.fetch_seconds must be between 1 and 86400." }
        if let maxBytes, maxBytes < 1 { return "downloads.max_bytes must be positive." }
        if let bad = domains.first(where: { $0.isEmpty || $0.contains("/") || $0.contains(" ") }) {
            return "downloads.domains has \"\(bad)\", which is not a host name."
        }
        return nil
    }
}
