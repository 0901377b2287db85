import Foundation
import PreviewCore
import PreviewFetch
import Testing

/// A card's other sources (an oEmbed answer, `yt-dlp`'s reading), how they fill one card in the
/// site's order, and which site and oEmbed address a link has.
@Suite struct LinkCardSourcesTests {
    let post = URL(string: "https://x.com/coachrivera/status/1850000000000000001")!

    /// X's oEmbed answer: the author from its fields, the post's text and date from the quote in its `html`.
    @Test func anXPostFromItsOEmbedAnswer() throws {
        let answer: [String: Any] = [
            "author_name": "Coach Rivera", "author_url": "https://twitter.com/coachrivera", "provider_name": "Twitter", "type": "rich",
            "html": """
            <blockquote class="twitter-tweet"><p lang="en" dir="ltr">Camp dates are out.<br>See you in June! \
            <a href="https://t.co/x">pic.twitter.com/x</a></p>&mdash; Coach Rivera (@coachrivera) \
            <a href="https://twitter.com/coachrivera/status/1?ref_src=twsrc%5Etfw">March 9, 2027</a></blockquote>
            """
        ]
        let card = try #require(LinkCard(oEmbed: answer, url: post, site: .x))
        #expect(card.kind == .post && card.source == .oembed && card.site == "Twitter" && card.title == "Coach Rivera on Twitter")
        #expect(card.author == LinkCard.Author(name: "Coach Rivera", handle: "@coachrivera"))
        #expect(card.text == "Camp dates are out. See you in June! pic.twitter.com/x" && card.publishedAt == "2027-03-09")
        #expect(card.media.isEmpty)
        #expect(LinkCard(oEmbed: ["version": "1.0"], url: post, site: .x) == nil, "an answer that says nothing is no card")
    }

    /// A video's oEmbed answer: its picture and the video's size; a picture address that is not the web's is dropped.
    @Test func aVideosOEmbedAnswer() throws {
        let url = URL(string: "https://www.tiktok.com/@coachdrills/video/7300000000000000000")!
        var answer: [String: Any] = [
            "type": "video", "title": "Footwork drills", "author_name": "Coach Drills", "author_url": "https://www.tiktok.com/@coachdrills",
            "thumbnail_url": "https://p16.example.com/t.jpg", "width": 720, "height": 1280
        ]
        let card = try #require(LinkCard(oEmbed: answer, url: url, site: .tiktok))
        #expect(card.kind == .video && card.author?.handle == "@coachdrills")
        #expect(card.media == [LinkCard.Media(type: "video", width: 720, height: 1280, thumbnail: "https://p16.example.com/t.jpg")])
        let elsewhere = URL(string: "https://photos.example.com/p/1")!
        #expect(LinkCard(oEmbed: ["type": "photo", "title": "Team photo"], url: elsewhere, site: .web)?.kind == .image)
        #expect(LinkCard(oEmbed: ["type": "rich", "title": "An article"], url: elsewhere, site: .web)?.kind == .article)
        answer["thumbnail_url"] = "file:///etc/passwd"
        #expect(try #require(LinkCard(oEmbed: answer, url: url, site: .tiktok)).media.first?.thumbnail == nil)
    }

    @Test func whatYtDlpReads() throws {
        let url = URL(string: "https://www.instagram.com/reel/Cx1/")!
        let info: [String: Any] = [
            "title": "Signing day", "description": "Committed!", "uploader": "Jordan Lee", "uploader_id": "jordanlee27",
            "timestamp": 1_793_577_600.0, "thumbnail": "https://cdn.example.com/t.jpg", "duration": 14.5, "width": 1080, "height": 1920,
            "vcodec": "h264", "webpage_url": "https://www.instagram.com/reel/Cx1/", "extractor_key": "Instagram"
        ]
        let card = try #require(LinkCard(extracted: info, url: url, site: .instagram))
        #expect(card.kind == .video && card.source == .ytDLP && card.site == "Instagram")
        #expect(card.author == LinkCard.Author(name: "Jordan Lee", handle: "@jordanlee27"))
        #expect(card.publishedAt == "2026-11-02T00:00:00Z" && card.text == "Committed!")
        #expect(card.media == [LinkCard.Media(type: "video", width: 1080, height: 1920, thumbnail: "https://cdn.example.com/t.jpg", duration: 14.5)])
        #expect(LinkCard(extracted: ["upload_date": "20261102"], url: url, site: .instagram) == nil, "no title, no card")
        // Numbers a stranger wrote: no trap, nothing JSON cannot say.
        let hostile: [String: Any] = ["title": "x", "duration": Double.infinity, "width": 1e300, "height": -5, "timestamp": 1e300]
        let bounded = try #require(LinkCard(extracted: hostile, url: url, site: .instagram))
        #expect(bounded.media.first.map { $0.duration == nil && $0.width == nil && $0.height == nil } == true && bounded.publishedAt == nil)
        #expect(throws: Never.self) { _ = try JSONEncoder().encode(bounded) }
        let page = PageMetadata(
            html: Array("<meta property=og:video content='https://v.example/v'><meta property=video:duration content=1e400>".utf8))
        #expect(LinkCard(page, url: url).media.first?.duration == nil)
    }

    /// Each field from the first source that has it; a title read only from `<title>` gives way.
    @Test func sourcesFillOneCardInOrder() throws {
        let url = URL(string: "https://news.example.com/a")!
        let page = LinkCard(PageMetadata(html: Array("<title>A page</title><meta name=description content='From the page'>".utf8)), url: url)
        let oEmbed = try #require(
            LinkCard(oEmbed: ["title": "From oEmbed", "author_name": "Dana", "thumbnail_url": "https://news.example.com/p.jpg"], url: url, site: .web)
        )
        let card = page.filled(from: oEmbed)
        #expect(card.title == "From oEmbed" && card.source == .oembed, "the oEmbed title before the <title>")
        #expect(card.text == "From the page" && card.author?.name == "Dana" && card.media.first?.thumbnail == "https://news.example.com/p.jpg")
        let tagged = LinkCard(PageMetadata(html: Array("<meta property=og:title content='From Open Graph'>".utf8)), url: url)
        #expect(tagged.filled(from: oEmbed).title == "From Open Graph", "Open Graph before oEmbed")
        #expect(page.filled(from: nil) == page)
    }

    @Test func eachSiteByItsHostsAndTheOperators() throws {
        var settings = LinkPreviewSettings()
        #expect(settings.site(of: "x.com") == .x && settings.site(of: "mobile.twitter.com") == .x && settings.site(of: "vm.tiktok.com") == .tiktok)
        #expect(settings.site(of: "youtu.be") == .youtube && settings.site(of: "notx.com") == .web && settings.site(of: "x.com.evil.example") == .web)
        let link = URL(string: "https://www.instagram.com/p/Cz1/")!
        #expect(settings.oEmbed(of: .instagram, for: link) == nil, "Instagram's oEmbed needs a token")
        settings.instagramToken = "app|secret"
        let instagram = try #require(settings.oEmbed(of: .instagram, for: link).flatMap(URLComponents.init(string:)))
        #expect(instagram.queryItems?.contains(URLQueryItem(name: "access_token", value: "app|secret")) == true)
        #expect(instagram.queryItems?.contains(URLQueryItem(name: "url", value: link.absoluteString)) == true)
        #expect(settings.oEmbed(of: .hudl, for: link) == nil && settings.oEmbed(of: .web, for: link) == nil)
        let configured = try JSONDecoder().decode(
            LinkPreviewSettings.self, from: Data(#"{"sites": {"x": {"hosts": ["Nitter.Example"], "oembed": "https://o.example/x"}}}"#.utf8))
        #expect(configured.site(of: "nitter.example") == .x && configured.problem == nil)
        #expect(configured.oEmbed(of: .x, for: link)?.hasPrefix("https://o.example/x?url=") == true)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LinkPreviewSettings.self, from: Data(#"{"sites": {"myspace": {}}}"#.utf8)) }
        let bad = try JSONDecoder().decode(LinkPreviewSettings.self, from: Data(#"{"sites": {"x": {"oembed": "gopher://o.example/"}}}"#.utf8))
        #expect(bad.problem != nil)
    }

    /// One normal form for downloads and cards: tracking parameters, `www.`, the default port and the fragment go.
    @Test func aLinksNormalForm() throws {
        let link = try WebLink("  HTTPS://WWW.Example.com:443/a?utm_source=x&fbclid=1&ref_src=tw&id=7#top ", use: "previewed")
        #expect(link.normalized == "https://example.com/a?id=7" && link.host == "example.com")
        #expect(try WebLink("http://[::1]:8080/", use: "previewed").host == "::1")
        for text in ["", "file:///etc/passwd", "gopher://example.com/", "https://user:pw@example.com/", "https://"] {
            #expect(throws: PreviewError.self, "\(text)") { _ = try WebLink(text, use: "previewed") }
        }
    }
}

/// X's embed data: the widget's token as JavaScript makes it (each value below printed by Node for
/// `((Number(id) / 1e15) * Math.PI).toString(6 ** 2).replace(/(0+|\.)/g, '')`), and the card of an answer.
@Suite struct XEmbedDataTests {
    @Test func theWidgetsTokenIsJavaScripts() {
        let node: [(String, String)] = [
            ("1850000000000000001", "4hfy2jnxph"), ("20", "6dq1a2xwd93"), ("1628832338187636740", "3y54libozsy"),
            ("1495123456789012345", "3mh2h93w4gu"), ("463440424141459456", "14fxvks611f"), ("1", "bhi2ay3f28n"),
            ("999999999999999999", "2f9lc2ug9mm"), ("391822090107170827", "y6y18kmdyr"), ("1491154417406568722", "3m4llajopf"),
            ("346929882384689229", "u9wufixjf3d"), ("381831225775033004", "xbk3e5nlds"), ("1350743034381743711", "39vhfrveslh"),
            ("1231929732838568406", "2zi7yxkc3mt"), ("1091990370323492545", "2nal78w6ql6"), ("514692001386543376", "18wyakzp5o3"),
            ("606080152696388083", "1gw21tauzz5"), ("1262761755875442394", "3272zn1cui"), ("526843142518961269", "19z4k4wo8j"),
            ("1464629495655073204", "3jt9oyrr5zr"), ("1786638154791767751", "4bwwj9e513")
        ]
        for (id, token) in node { #expect(XEmbedData.token(of: id) == token, "\(id)") }
        #expect(XEmbedData.radix36(0.5) == "0.i" && XEmbedData.radix36(36) == "10" && XEmbedData.radix36(0) == "0")
    }

    @Test func aPostsIdAndItsCard() throws {
        #expect(XEmbedData.postID(in: URL(string: "https://x.com/coach/status/1850000000000000001?s=20")!) == "1850000000000000001")
        #expect(XEmbedData.postID(in: URL(string: "https://x.com/coach")!) == nil)
        #expect(XEmbedData.postID(in: URL(string: "https://x.com/coach/status/12a")!) == nil)
        let data: [String: Any] = [
            "text": "Camp is on.", "created_at": "2026-11-03T17:04:11.000Z", "user": ["name": "Coach Rivera", "screen_name": "coachrivera"],
            "mediaDetails": [
                [
                    "type": "video", "media_url_https": "https://pbs.example/poster.jpg", "original_info": ["width": 1280, "height": 720],
                    "video_info": ["duration_millis": 14_500]
                ]
            ]
        ]
        let card = try #require(LinkCard(xEmbed: data, url: URL(string: "https://x.com/coachrivera/status/1")!))
        #expect(card.title == "Coach Rivera on X" && card.text == "Camp is on." && card.author?.handle == "@coachrivera")
        #expect(card.media == [LinkCard.Media(type: "video", width: 1280, height: 720, thumbnail: "https://pbs.example/poster.jpg", duration: 14.5)])
        #expect(LinkCard(xEmbed: ["user": ["name": "x"]], url: URL(string: "https://x.com/a/status/1")!) == nil)
    }
}

/// The proxy's choice among a DNS answer's addresses, as a pure function over bare addresses: no
/// name is looked up and nothing is connected to.
@Suite struct ProxyAddressChoiceTests {
    let policy = FetchAddressPolicy(exceptions: [FetchAddressPolicy.Exception("127.0.0.1:8080")!])

    /// A name that answers a public and a private address (a rebinding's first answer) is reached on
    /// the public one only; one that answers only private ones (its second) is refused with why.
    @Test func aMixedAnswerIsReachedOnItsPublicAddressOnly() throws {
        let (public4, private4, metadata, mapped) = try (
            #require(NetworkAddress("93.184.216.34")), #require(NetworkAddress("10.0.0.5")), #require(NetworkAddress("169.254.169.254")),
            #require(NetworkAddress("::ffff:127.0.0.1"))
        )
        let mixed = AddressCheckingProxy.checked([private4, public4, metadata], port: 443, policy: policy)
        #expect(mixed.allowed == [public4] && mixed.refusal?.contains("10.0.0.5") == true)
        let inward = AddressCheckingProxy.checked([metadata, mapped], port: 80, policy: policy)
        #expect(inward.allowed.isEmpty && inward.refusal?.contains("169.254.169.254") == true)
        let loopback = try #require(NetworkAddress("127.0.0.1"))
        #expect(AddressCheckingProxy.checked([loopback], port: 8080, policy: policy).allowed == [loopback], "the excepted port")
        #expect(AddressCheckingProxy.checked([loopback], port: 8081, policy: policy).allowed.isEmpty, "another port of it")
        #expect(AddressCheckingProxy.checked([mapped], port: 8080, policy: policy).allowed.isEmpty, "its IPv4-mapped spelling is not excepted")
    }
}
