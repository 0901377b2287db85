import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewCore
import PreviewPipeline
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// A signed IIIF identifier: a zoom client reads the image's information and tiles without the
/// token until it expires, and nothing else; a changed or expired signature is refused.
@Suite struct SignedIIIFTests {
    static let token = "correct-horse-battery-staple"
    static let key = (id: "k1", secret: String(repeating: "c", count: 40))

    @Test func aSignedIdentifierReadsItsImageOnly() async throws {
        let keys = try SigningKeys([Self.key])
        let harness = try await Harness(token: Self.token, signingKeys: keys)
        defer { harness.folder.remove() }
        let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=a.pdf&title=A", method: .post, headers: bearer,
                body: try sample("document-5-pages.pdf")
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()
            let links = try await client.execute(uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: bearer) { try json($0) }
            let pages = try #require(links["iiif_pages"] as? [String])
            #expect(pages.count == 5 && links["iiif"] == nil)
            let info = pages[1]
            #expect(info.hasPrefix("/iiif/3/\(id)~v1~p2~s") && info.hasSuffix("/info.json"))
            let identifier = try await client.execute(uri: info, method: .get) { response in
                #expect(response.status == .ok)
                return try #require(try json(response)["id"] as? String)
            }
            #expect(identifier.hasSuffix(String(info.dropLast("/info.json".count))), "the tiles' URLs carry the signature")
            let base = String(info.dropLast("/info.json".count))
            try await client.execute(uri: base + "/0,0,512,512/512,512/0/default.jpg", method: .get) { #expect($0.status == .ok) }
            // Unsigned, another page, a changed signature, an expired one: refused.
            try await client.execute(uri: "/iiif/3/\(id)~v1~p2/info.json", method: .get) { #expect($0.status == .unauthorized) }
            let otherPage = base.replacingOccurrences(of: "~p2~", with: "~p3~")
            try await client.execute(uri: otherPage + "/info.json", method: .get) { #expect($0.status == .forbidden) }
            let changed = String(base.dropLast()) + (base.last == "A" ? "B" : "A")
            try await client.execute(uri: changed + "/info.json", method: .get) { #expect($0.status == .forbidden) }
            let expired = SignedURLs(keys: keys).iiifPath("\(id)~v1~p2", expires: harness.clock.unixSeconds - 1)
            try await client.execute(uri: "\(expired)/info.json", method: .get) { #expect($0.status == .forbidden) }
            // The signature reads; it writes nothing and reaches no other route.
            try await client.execute(uri: "/v1/documents/\(id)/content?iiif=\(base)", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    /// A share's page zooms through identifiers signed for its share: they work while the share
    /// does, and revoking it stops them (410) like the rest of its page.
    @Test func aSharesZoomEndsWithTheShare() async throws {
        let harness = try await Harness(token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await SharesTests.upload(client, harness, "document-5-pages.pdf")
            let made = try await SharesTests.share(client, id, #"{"label": "State University"}"#)
            let shareID = try #require(made["share_id"] as? String)
            let page = try await client.execute(uri: try #require(made["url"] as? String), method: .get) { String(buffer: $0.body) }
            let zooms = page.matches(of: /data-zoom="([^"]+)"/).map { String($0.output.1) }
            #expect(zooms.count == 5 && zooms.allSatisfy { $0.contains("~v1~p") && $0.contains(".\(shareID).") }, "\(zooms)")
            let info = try #require(zooms.first) + "/info.json"
            try await client.execute(uri: info, method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: SharesTests.bearer) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: info, method: .get) { #expect($0.status == .gone) }
        }
    }
}
