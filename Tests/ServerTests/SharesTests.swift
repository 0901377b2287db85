import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewPipeline
@testable import PreviewDocuments
@testable import PreviewServer
@testable import PreviewWeb
import PreviewTestSupport
import Testing

/// Share links: made, listed with their counts and revoked with the token; opened by anyone with
/// the link, whose page's media are signed URLs of that document bound to the share.
@Suite struct SharesTests {
    static let token = "correct-horse-battery-staple"
    static let bearer: HTTPFields = [.authorization: "Bearer \(token)"]

    /// Uploads `sample` as `title` (with the token) and runs its job; its document id.
    static func upload(_ client: some TestClientProtocol, _ harness: Harness, _ file: String, title: String = "Transcript") async throws -> String {
        let id = try await client.execute(
            uri: "/v1/documents?filename=\(file)&title=\(title)&owner=ana", method: .post, headers: bearer,
            body: try sample(file)
        ) { try #require(try json($0)["document_id"] as? String) }
        try await harness.drainQueue()
        return id
    }

    static func share(_ client: some TestClientProtocol, _ id: String, _ body: String) async throws -> [String: Any] {
        try await client.execute(uri: "/v1/documents/\(id)/shares", method: .post, headers: bearer, body: ByteBuffer(string: body)) { response in
            #expect(response.status == .created, "\(String(buffer: response.body))")
            return try json(response)
        }
    }

    static func shares(_ client: some TestClientProtocol, _ id: String) async throws -> [[String: Any]] {
        try await client.execute(uri: "/v1/documents/\(id)/shares", method: .get, headers: bearer) {
            try json($0)["shares"] as? [[String: Any]] ?? []
        }
    }

    /// The URLs in a page's images' and media's `src` attributes (not its script's), unescaped.
    static func sources(_ html: String) -> [String] {
        html.matches(of: /<(?:img|source|video|audio) [^>]*?src="([^"]+)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") }
    }

    /// Issue 65, item 11: a share of a long text is a page of bounded size (its pages' text
    /// describes the first of them only), and one visitor's openings are paced: 30 at once, then
    /// one a second, answered `429` with `Retry-After` in between.
    @Test func aLongSharedTextIsABoundedPageAndVisitorsArePaced() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=long.pdf&owner=ana", method: .post, headers: Self.bearer,
                body: ByteBuffer(bytes: TextPDF.repeated(pages: 120))
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()
            let url = try #require(try await Self.share(client, id, #"{"label": "State University"}"#)["url"] as? String)
            for index in 0..<30 {
                try await client.execute(uri: url, method: .get) { response in
                    #expect(response.status == .ok, "\(index)")
                    if index == 0 { #expect(response.body.readableBytes < 150_000, "\(response.body.readableBytes) bytes of HTML") }
                }
            }
            try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .tooManyRequests && response.headers[.retryAfter] != nil, "one visitor's pace")
                #expect(String(buffer: response.body).contains("Opened too often"), "said as openings, not as wrong passwords")
            }
            harness.clock.advance(by: .seconds(1))
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test(arguments: TestBackend.available) func aShareOpensCountsAndIsRevoked(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, harness, "document-5-pages.pdf")
            let made = try await Self.share(client, id, #"{"label": "State University"}"#)
            let url = try #require(made["url"] as? String)
            let shareID = try #require(made["share_id"] as? String)
            #expect(url.hasPrefix("/s/") && url.count >= 3 + 22 && made["status"] as? String == "live" && made["version"] as? String == "latest")
            #expect(made["password"] as? Bool == false && made["allow_download"] as? Bool == false)

            // No token, no cookie: the page, its headers, its pages by signed URLs of this share.
            let html = try await client.execute(uri: url, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.headers[HTTPField.Name("X-Robots-Tag")!]?.hasPrefix("noindex") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                return String(buffer: response.body)
            }
            #expect(html.contains("<h1>Transcript</h1>") && !html.contains("download=1") && !html.contains("/ui/"))
            let pages = Self.sources(html)
            #expect(pages.count == 5 && pages.allSatisfy { $0.hasPrefix("/v1/documents/\(id)/preview?page=") && $0.contains("&share=\(shareID)&") })
            try await client.execute(uri: pages[1], method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg")
            }
            // Taken from the page and altered by hand: the original, another page, another share.
            for altered in [
                pages[1].replacingOccurrences(of: "/preview?", with: "/content?"),
                pages[1].replacingOccurrences(of: "page=2", with: "page=3"),
                pages[1].replacingOccurrences(of: "share=\(shareID)", with: "share=\(UUID().uuidString.lowercased())")
            ] {
                try await client.execute(uri: altered, method: .get) { #expect($0.status == .forbidden, "\(altered)") }
            }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            let listed = try #require(try await Self.shares(client, id).first)
            #expect(listed["share_id"] as? String == shareID && listed["opened_count"] as? Int == 2 && listed["download_count"] as? Int == 0)
            #expect(listed["last_opened_at"] is String && listed["url"] as? String == url && listed["label"] as? String == "State University")
            // Each opening with its time, newest first; the history keeps the newest 1000.
            let visits = try await client.execute(uri: "/v1/shares/\(shareID)/visits", method: .get, headers: Self.bearer) {
                try json($0)["visits"] as? [[String: Any]] ?? []
            }
            #expect(visits.count == 2 && visits.allSatisfy { $0["kind"] as? String == "opened" && $0["at"] is String })
            for _ in 0..<ShareVisit.kept { try await harness.pipeline.store.index.recordShareVisit(id: shareID, .downloaded) }
            let kept = try await harness.pipeline.store.index.shareVisits(id: shareID)
            #expect(kept.count == ShareVisit.kept && kept.allSatisfy { $0.kind == .downloaded })
            #expect(try await harness.pipeline.store.index.share(id: shareID)?.downloadCount == ShareVisit.kept)
            try await client.execute(uri: "/v1/shares/nothing/visits", method: .get, headers: Self.bearer) { #expect($0.status == .notFound) }

            // Revoked: the link is 410 at once, and so are the media of a page already open.
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: Self.bearer) { #expect($0.status == .ok) }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .gone) }
            try await client.execute(uri: pages[0], method: .get) { #expect($0.status == .gone) }
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: Self.bearer) { #expect($0.status == .notFound) }
            #expect(try await Self.shares(client, id).first?["status"] as? String == "revoked")
            try await client.execute(uri: "/s/" + String(repeating: "x", count: 22), method: .get) { #expect($0.status == .notFound) }
            // The API needs the token.
            try await client.execute(uri: "/v1/documents/\(id)/shares", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    /// A download is offered and counted only when the share allows it.
    @Test func downloadsAreCountedWhenAllowed() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await Self.upload(client, harness, "image.webp")
            let url = try #require(try await Self.share(client, id, #"{"label": "Coach", "allow_download": true}"#)["url"] as? String)
            let html = try await client.execute(uri: url, method: .get) { String(buffer: $0.body) }
            let download = try #require(
                html.firstMatch(of: /href="([^"]*download=1[^"]*)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") })
            try await client.execute(uri: download, method: .get) { response in
                #expect(response.status == .ok && response.body.readableBytes == (try? Data(contentsOf: Fixtures.sample("image.webp")).count))
            }
            #expect(try await Self.shares(client, id).first?["download_count"] as? Int == 1)
            let share = try #require(try await Self.shares(client, id).first?["share_id"] as? String)
            #expect(try await harness.pipeline.store.index.shareVisits(id: share).map(\.kind) == [.downloaded, .opened])
        }
    }

    /// A share without downloads never serves the original's bytes: its page plays and shows what
    /// was made of it, and a signed URL of the original for that share is refused.
    @Test func noDownloadSharesNeverServeTheOriginal() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let video = try await Self.upload(client, harness, "video-h264.mp4", title: "Game")
            let videoShare = try await Self.share(client, video, #"{"label": "Coach"}"#)
            let html = try await client.execute(uri: try #require(videoShare["url"] as? String), method: .get) { String(buffer: $0.body) }
            let sources = Self.sources(html)
            #expect(sources.contains { $0.contains("/renditions/") } || sources.contains { $0.contains("/hls/") }, "\(sources)")
            #expect(!html.contains("/content"), "neither a source nor a filmstrip link reaches the original")
            let expires = harness.clock.unixSeconds + 600
            for (allowed, shareBody) in [(false, #"{"label": "Scout"}"#), (true, #"{"label": "Coach", "allow_download": true}"#)] {
                let share = try #require(try await Self.share(client, video, shareBody)["share_id"] as? String)
                let original = harness.server.signed.sign("/v1/documents/\(video)/content", query: [("share", share)], expires: expires)
                try await client.execute(uri: original, method: .get) { #expect($0.status == (allowed ? .ok : .forbidden), "\(shareBody)") }
                try await client.execute(uri: original, method: .get, headers: [.range: "bytes=0-99"]) {
                    #expect($0.status == (allowed ? .partialContent : .forbidden), "\(shareBody)")
                }
            }
        }
    }

    /// Expiry ends a share; so does deleting its version; a share of the latest version follows the
    /// document to the version that remains.
    @Test(arguments: TestBackend.available) func expiryAndDeletionEndShares(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let first = try await Self.upload(client, harness, "image.webp", title: "Photo")
            let second = try await Self.upload(client, harness, "image-alpha.png", title: "Photo")
            try await client.execute(
                uri: "/v1/documents/\(first)/shares", method: .post, headers: Self.bearer,
                body: ByteBuffer(string: #"{"label": "Late", "expires_at": "2020-01-01T00:00:00Z"}"#)
            ) {
                #expect($0.status == .badRequest)
            }
            let later = ISO8601DateFormatter().string(from: harness.clock.now.addingTimeInterval(3600))
            let expiring = try #require(try await Self.share(client, first, #"{"label": "Later", "expires_at": "\#(later)"}"#)["url"] as? String)
            let latest = try #require(try await Self.share(client, first, #"{"label": "Latest"}"#)["url"] as? String)
            let pinned = try #require(try await Self.share(client, first, #"{"label": "V2", "version": 2}"#)["url"] as? String)
            try await client.execute(uri: expiring, method: .get) { #expect($0.status == .ok) }
            // One whose time has come (made straight in the index: the API refuses a past expiry).
            let (token, hour) = ("expired-link-token-0000", harness.clock.now.addingTimeInterval(-3600))
            try await harness.pipeline.store.index.insertShare(
                ShareRecord(
                    id: "expired", tokenSha256: DocumentService.tokenHash(token), documentID: first,
                    version: nil, label: "Soon", passwordHash: nil, allowDownload: false,
                    createdAt: hour.addingTimeInterval(-60), expiresAt: hour))
            try await client.execute(uri: "/s/\(token)", method: .get) { #expect($0.status == .gone) }
            #expect(try await Self.shares(client, first).contains { $0["label"] as? String == "Soon" && $0["status"] as? String == "expired" })
            // An hour on, the share made to last an hour has ended too.
            harness.clock.advance(by: .seconds(3601))
            try await client.execute(uri: expiring, method: .get) { #expect($0.status == .gone) }

            try await client.execute(uri: "/v1/documents/\(second)?version=2", method: .delete, headers: Self.bearer) { #expect($0.status == .ok) }
            try await client.execute(uri: pinned, method: .get) { #expect($0.status == .gone) }
            try await client.execute(uri: latest, method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body).contains("/v1/documents/\(first)/preview?"))
            }
            try await client.execute(uri: "/v1/documents/\(first)", method: .delete, headers: Self.bearer) { #expect($0.status == .ok) }
            try await client.execute(uri: latest, method: .get) { #expect($0.status == .gone) }
        }
    }

    /// The Documents List's needs: `shared=true|false`, `sort=most_shared` (paged by its cursor) and
    /// the statistics' `shared_documents` agree with the shares table.
    @Test(arguments: TestBackend.available) func listingsAndStatisticsCountLiveShares(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let most = try await Self.upload(client, harness, "image.webp", title: "Most")
            let once = try await Self.upload(client, harness, "image-alpha.png", title: "Once")
            let revoked = try await Self.upload(client, harness, "document-5-pages.pdf", title: "Revoked")
            for label in ["A", "B"] { _ = try await Self.share(client, most, #"{"label": "\#(label)"}"#) }
            _ = try await Self.share(client, once, #"{"label": "C"}"#)
            let gone = try #require(try await Self.share(client, revoked, #"{"label": "D"}"#)["share_id"] as? String)
            try await client.execute(uri: "/v1/shares/\(gone)", method: .delete, headers: Self.bearer) { #expect($0.status == .ok) }

            func titles(_ query: String) async throws -> ([String], String?) {
                try await client.execute(uri: "/v1/documents?owner=ana&\(query)", method: .get, headers: Self.bearer) { response in
                    let body = try json(response)
                    return ((body["documents"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }, body["next_cursor"] as? String)
                }
            }
            #expect(try await titles("shared=true").0.sorted() == ["Most", "Once"])
            #expect(try await titles("shared=false").0 == ["Revoked"])
            var order: [String] = []
            var cursor: String?
            repeat {
                let (page, next) = try await titles("sort=most_shared&limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""))
                order += page
                cursor = next
            } while cursor != nil
            #expect(order == ["Most", "Once", "Revoked"])
            try await client.execute(uri: "/v1/documents?shared=maybe", method: .get, headers: Self.bearer) { #expect($0.status == .badRequest) }
            let shared = try await client.execute(uri: "/v1/stats?owner=ana", method: .get, headers: Self.bearer) {
                try json($0)["shared_documents"] as? Int
            }
            #expect(shared == 2)
            #expect(try await harness.pipeline.store.index.recountStatistics(owner: nil).sharedDocuments == 2)
        }
    }
}
