import Foundation

/// The sites whose links are read their own way, and everything else (``web``).
package enum LinkSite: String, Sendable, Codable, CaseIterable {
    case x, instagram, tiktok, youtube, hudl, web

    /// The hosts of the site (and their subdomains), before any an operator adds.
    var hosts: [String] {
        switch self {
        case .x: ["x.com", "twitter.com", "mobile.twitter.com", "fixupx.com", "vxtwitter.com", "fxtwitter.com"]
        case .instagram: ["instagram.com", "instagr.am"]
        case .tiktok: ["tiktok.com"]
        case .youtube: ["youtube.com", "youtu.be", "youtube-nocookie.com"]
        case .hudl: ["hudl.com"]
        case .web: []
        }
    }

    /// The site's public oEmbed endpoint (the link goes in `url`), before any an operator sets.
    /// Instagram's needs an app token (``LinkPreviewSettings/instagramToken``); Hudl publishes none.
    var oEmbed: String? {
        switch self {
        case .x: "https://publish.twitter.com/oembed?omit_script=1&dnt=true"
        case .tiktok: "https://www.tiktok.com/oembed"
        case .youtube: "https://www.youtube.com/oembed?format=json"
        case .instagram: "https://graph.facebook.com/v21.0/instagram_oembed?omitscript=true"
        case .hudl, .web: nil
        }
    }

    /// Where the site's embed widget reads a post (X's: the post's text, author, photos and video),
    /// before any address an operator sets; the post's id and the widget's token are added.
    var embedData: String? { self == .x ? "https://cdn.syndication.twimg.com/tweet-result" : nil }

    /// Whether `yt-dlp` reads the link first: sites whose pages carry little without a script.
    package var readByExtractor: Bool { extractors != nil }

    /// The `yt-dlp` extractors that read the site's links (`--use-extractors`), the generic one last:
    /// matching a link against all of yt-dlp's 1,800 takes most of a second, these few almost nothing.
    package var extractors: String? {
        switch self {
        case .instagram: "instagram.*,generic"
        case .tiktok: "tiktok.*,vm.tiktok,generic"
        default: nil
        }
    }
}

/// What making a link's card may cost and where sites' answers come from (`links` in the
/// `--config` JSON: `{"fetch_seconds": 20, "max_page_bytes": 4194304, "instagram_token": "…",
/// "sites": {"x": {"hosts": ["nitter.example"], "oembed": "https://…", "embed_data": "https://…"}}}`).
package struct LinkPreviewSettings: Sendable, Equatable, Decodable {
    /// Hosts added to a site, and its oEmbed and embed-data endpoints replaced.
    package struct SiteSettings: Sendable, Equatable, Decodable {
        package var hosts: [String] = []
        package var oEmbed: String?
        package var embedData: String?

        package init(hosts: [String] = [], oEmbed: String? = nil, embedData: String? = nil) {
            (self.hosts, self.oEmbed, self.embedData) = (hosts, oEmbed, embedData)
        }

        enum CodingKeys: String, CodingKey {
            case hosts, oEmbed = "oembed", embedData = "embed_data"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            hosts = try container.decodeIfPresent([String].self, forKey: .hosts)?.map { $0.lowercased() } ?? []
            oEmbed = try container.decodeIfPresent(String.self, forKey: .oEmbed)
            embedData = try container.decodeIfPresent(String.self, forKey: .embedData)
        }
    }

    /// The whole card: the page, its oEmbed, `yt-dlp` and the picture.
    package var fetchSeconds: Double = 20
    /// The largest page read (its head is what a card needs; a page past it is refused).
    package var maxPageBytes = 4 * 1024 * 1024
    /// The largest picture, and the largest file a link to a file may be for its preview.
    package var maxPictureBytes = 10 * 1024 * 1024
    package var maxFileBytes = 50 * 1024 * 1024
    /// How long a card is served as it is; after, it is served while one refresh runs.
    package var freshSeconds: Double = 86_400
    /// How long a link that gave no card answers its failure before it is tried again.
    package var failureSeconds: Double = 600
    /// The Instagram app token its oEmbed endpoint needs; without it, Instagram is read by `yt-dlp`
    /// and the page's tags.
    package var instagramToken: String?
    package var sites: [LinkSite: SiteSettings] = [:]

    package init() {}

    enum CodingKeys: String, CodingKey {
        case fetchSeconds = "fetch_seconds", maxPageBytes = "max_page_bytes", maxPictureBytes = "max_picture_bytes"
        case maxFileBytes = "max_file_bytes", freshSeconds = "fresh_seconds", failureSeconds = "failure_seconds"
        case instagramToken = "instagram_token", sites
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fetchSeconds = try container.decodeIfPresent(Double.self, forKey: .fetchSeconds) ?? fetchSeconds
        maxPageBytes = try container.decodeIfPresent(Int.self, forKey: .maxPageBytes) ?? maxPageBytes
        maxPictureBytes = try container.decodeIfPresent(Int.self, forKey: .maxPictureBytes) ?? maxPictureBytes
        maxFileBytes = try container.decodeIfPresent(Int.self, forKey: .maxFileBytes) ?? maxFileBytes
        freshSeconds = try container.decodeIfPresent(Double.self, forKey: .freshSeconds) ?? freshSeconds
        failureSeconds = try container.decodeIfPresent(Double.self, forKey: .failureSeconds) ?? failureSeconds
        instagramToken = try container.decodeIfPresent(String.self, forKey: .instagramToken)
        for (name, site) in try container.decodeIfPresent([String: SiteSettings].self, forKey: .sites) ?? [:] {
            guard let known = LinkSite(rawValue: name), known != .web else {
                throw DecodingError.dataCorruptedError(forKey: .sites, in: container, debugDescription: "links.sites has no site \(name).")
            }
            sites[known] = site
        }
    }

    /// What is wrong with these settings, or nil.
    package var problem: String? {
        if !(1...600).contains(fetchSeconds) { return "links.fetch_seconds must be between 1 and 600." }
        if !(1...86_400 * 30).contains(freshSeconds) || !(1...86_400).contains(failureSeconds) {
            return "links.fresh_seconds must be at most 30 days and links.failure_seconds at most a day, both positive."
        }
        if min(maxPageBytes, maxPictureBytes, maxFileBytes) < 1024 { return "links' byte limits must be at least 1024." }
        for (site, settings) in sites {
            for (name, endpoint) in [("oembed", settings.oEmbed), ("embed_data", settings.embedData)] {
                if let endpoint, (try? WebLink(endpoint, use: "used")) == nil {
                    return "links.sites.\(site.rawValue).\(name) must be an http or https address."
                }
            }
            if let bad = settings.hosts.first(where: { $0.isEmpty || $0.contains("/") || $0.contains(" ") }) {
                return "links.sites.\(site.rawValue).hosts has \"\(bad)\", which is not a host name."
            }
        }
        return nil
    }

    /// The site `host` belongs to.
    package func site(of host: String) -> LinkSite {
        LinkSite.allCases.first { site in site != .web && WebLink.matches(host, site.hosts + (sites[site]?.hosts ?? [])) } ?? .web
    }

    /// Where the site's embed widget reads a post, or nil where it has none.
    package func embedData(of site: LinkSite) -> String? {
        sites[site]?.embedData ?? site.embedData
    }

    /// The address of the site's oEmbed answer about `link`, or nil where it has none.
    package func oEmbed(of site: LinkSite, for link: URL) -> String? {
        guard let endpoint = sites[site]?.oEmbed ?? site.oEmbed, var parts = URLComponents(string: endpoint) else { return nil }
        var query = parts.queryItems ?? []
        if site == .instagram {
            guard let instagramToken else { return nil }
            query.append(URLQueryItem(name: "access_token", value: instagramToken))
        }
        query.append(URLQueryItem(name: "url", value: link.absoluteString))
        parts.queryItems = query
        return parts.url?.absoluteString
    }
}
