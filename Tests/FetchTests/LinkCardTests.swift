import Foundation
import PreviewFetch
import Testing

/// Issue 72: a link's card read from pages shaped like each platform's real answers, by libxml2's
/// HTML parser; hostile markup bounded.
@Suite struct LinkCardTests {
    private func card(_ html: String, _ url: String) throws -> LinkCard {
        LinkCard(PageMetadata(html: Array(html.utf8)), url: try #require(URL(string: url)))
    }

    @Test func aYouTubeWatchPage() throws {
        let card = try card(
            """
            <!DOCTYPE html><html><head><title>Season Reel - YouTube</title>
            <meta property="og:site_name" content="YouTube"><meta property="og:url" content="https://www.youtube.com/watch?v=abc123">
            <meta property="og:title" content="Season Reel"><meta property="og:image" content="https://i.ytimg.com/vi/abc123/maxresdefault.jpg">
            <meta property="og:image:width" content="1280"><meta property="og:image:height" content="720">
            <meta property="og:description" content="Every touchdown of the 2026 season."><meta property="og:type" content="video.other">
            <meta property="og:video:url" content="https://www.youtube.com/embed/abc123"><meta property="og:video:width" content="1280">
            <meta property="og:video:height" content="720"><meta name="twitter:card" content="player">
            <script type="application/ld+json">{"@context":"https://schema.org","@type":"VideoObject","name":"Season Reel",
            "uploadDate":"2026-11-02T10:00:00-07:00","duration":"PT3M10S","author":{"@type":"Person","name":"Ana Rivera"},
            "thumbnailUrl":["https://i.ytimg.com/vi/abc123/hq.jpg"]}</script>
            </head><body><div id="player"></div></body></html>
            """, "https://www.youtube.com/watch?v=abc123&feature=share")
        #expect(card.kind == .video && card.site == "YouTube" && card.source == .opengraph)
        #expect(card.title == "Season Reel" && card.text == "Every touchdown of the 2026 season.")
        #expect(card.canonicalURL == "https://www.youtube.com/watch?v=abc123")
        #expect(card.author?.name == "Ana Rivera" && card.publishedAt == "2026-11-02T10:00:00-07:00")
        #expect(
            card.media == [
                .init(type: "video", width: 1280, height: 720, thumbnail: "https://i.ytimg.com/vi/abc123/maxresdefault.jpg", duration: 190)
            ])
    }

    @Test func aNewsArticleWithOnlyJSONLD() throws {
        let card = try card(
            """
            <html><head><title>Rivera commits to State | The Daily</title><base href="https://news.example.com/static/">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"The Daily"},
            {"@type":"NewsArticle","headline":"Rivera commits to State","description":"The quarterback chose State over three offers.",
            "author":[{"@type":"Person","name":"Sam Lee"}],"datePublished":"2026-11-30T08:00:00Z","image":[{"url":"img/rivera.jpg"}]}]}</script>
            </head><body><article><p>…</p></article></body></html>
            """, "https://news.example.com/2026/11/rivera")
        #expect(card.kind == .article && card.source == .jsonLD && card.site == "news.example.com")
        #expect(card.title == "Rivera commits to State" && card.text == "The quarterback chose State over three offers.")
        #expect(card.author == .init(name: "Sam Lee", handle: nil) && card.publishedAt == "2026-11-30T08:00:00Z")
        #expect(card.media.first?.thumbnail == "https://news.example.com/static/img/rivera.jpg", "resolved against <base>")
    }

    @Test func socialPostsByTheirSitesAddresses() throws {
        let instagram = try card(
            """
            <html><head><meta property="og:type" content="article"><meta property="og:title" content="Coach Diaz on Instagram: “Camp day 2”">
            <meta property="og:image" content="https://scontent.cdninstagram.com/v/p1080.jpg"><meta name="twitter:creator" content="@coachdiaz">
            <meta property="og:description" content="1,204 likes - coachdiaz on November 30, 2026: Camp day 2"></head><body></body></html>
            """, "https://www.instagram.com/p/C0ab12/")
        #expect(instagram.kind == .post && instagram.author?.handle == "@coachdiaz" && instagram.site == "instagram.com")
        #expect(instagram.title == "Coach Diaz on Instagram: “Camp day 2”", "UTF-8 without a declared charset")
        #expect(instagram.media.first?.type == "image" && instagram.media.first?.thumbnail == "https://scontent.cdninstagram.com/v/p1080.jpg")
        let tiktok = try card(
            """
            <html><head><meta property="og:title" content="Drills with the team">
            <meta property="og:image" content="https://p16.tiktokcdn.com/cover.jpeg"><meta property="og:site_name" content="TikTok"></head></html>
            """, "https://www.tiktok.com/@ana/video/7301234567890")
        #expect(tiktok.kind == .video && tiktok.site == "TikTok")
        // X answers a post's page with a script shell: only its title, and the kind by its address.
        let shell = try card(
            "<!DOCTYPE html><html><head><title>X</title></head><body><noscript>JavaScript is not available.</noscript></body></html>",
            "https://x.com/coachdiaz/status/1862000000000000000")
        #expect(shell.kind == .post && shell.title == "X" && shell.source == .title && shell.media.isEmpty)
    }

    @Test func aBarePageAndAddressesThatAreNotWeb() throws {
        let bare = try card("<title>\n  Spring   Showcase\t2027 </title><p>Hi", "http://example.org/showcase")
        #expect(bare.title == "Spring Showcase 2027" && bare.source == .title && bare.kind == .article && bare.site == "example.org")
        #expect(bare.canonicalURL == "http://example.org/showcase" && bare.text == nil && bare.author == nil)
        let hostile = try card(
            """
            <meta property="og:image" content="javascript:alert(1)"><meta property="og:url" content="file:///etc/passwd">
            <meta name="twitter:image" content="data:image/png;base64,AAAA"><link rel="canonical" href="//cdn.example.org/a">
            """, "https://example.org/a")
        #expect(hostile.media.isEmpty && hostile.canonicalURL == "https://cdn.example.org/a")
    }

    /// Markup nobody writes by hand: nested 100,000 deep, 10 MB of it, 10,000 tags, broken bytes.
    /// Each is read to its end (or to the item limit), with what it holds before the trouble.
    @Test func hostileMarkupIsBounded() throws {
        let deep =
            "<html><head><meta property=\"og:title\" content=\"Deep\"></head><body>"
            + String(repeating: "<div>", count: 100_000) + "<meta property=\"og:description\" content=\"inside\">"
        let read = PageMetadata(html: Array(deep.utf8))
        #expect(read.meta("og:title") == "Deep")
        let large = "<title>Large</title>" + String(repeating: "<p class=\"x\">filler text &amp; more</p>\n", count: 250_000)
        #expect(large.utf8.count > 10_000_000)
        #expect(PageMetadata(html: Array(large.utf8)).title == "Large")
        let many = String(repeating: "<meta name=\"k\" content=\"v\">", count: 10_000)
        #expect(PageMetadata(html: Array(many.utf8)).metas.count == Int(PageMetadata.maxItems))
        let script = "<script type=\"application/ld+json\">" + String(repeating: "x", count: 1_000_000) + "</script>"
        #expect(PageMetadata(html: Array(script.utf8)).jsonLD.first?.utf8.count == PageMetadata.maxText)
        var broken = Array("<title>Caf".utf8) + [0xC3, 0x28, 0xFF, 0x00] + Array("é</title><meta name=description content=ok>".utf8)
        broken += Array(repeating: 0, count: 100)
        #expect(PageMetadata(html: broken).title != nil)
        #expect(PageMetadata(html: []).title == nil)
    }

    /// A page in ISO-8859-1 that says so; and pages read on many threads at once (libxml2's tables
    /// are made once, before the first parse, not by whichever parses first).
    @Test func charsetsAndThreads() async throws {
        let latin = Array("<meta charset=\"iso-8859-1\"><title>Caf".utf8) + [0xE9] + Array("</title>".utf8)
        #expect(PageMetadata(html: latin).title == "Café")
        let page = Array("<title>Équipe “Rivera”</title><meta property=\"og:title\" content=\"Ça va\">".utf8)
        let titles = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { PageMetadata(html: page).title } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(titles.count == 64 && titles.allSatisfy { $0 == "Équipe “Rivera”" })
    }

    @Test func durationsInISO8601() {
        #expect(LinkCard.seconds(iso8601: "PT1M30S") == 90 && LinkCard.seconds(iso8601: "PT2H") == 7200)
        #expect(LinkCard.seconds(iso8601: "P0DT0H3M10.5S") == 190.5)
        #expect(LinkCard.seconds(iso8601: "90") == nil && LinkCard.seconds(iso8601: "PTxS") == nil)
    }
}
