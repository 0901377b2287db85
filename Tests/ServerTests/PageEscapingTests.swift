import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewServer
import PreviewWeb
import PreviewTestSupport
import Synchronization
import Testing

@Suite struct PageEscapingTests {
    /// The reported stored XSS: a title whose angle brackets hide inside grapheme clusters.
    @Test func titlesAndOwnersAreTextOnThePage() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        let title = "\u{600}<img src=x onerror=alert(1)>\u{301}"
        let owner = "\"\u{301}><script>alert(2)</script>"
        let body = multipart(
            boundary: "b", fields: ["owner": owner, "title": title],
            file: ("a.webp", Array(try Data(contentsOf: Fixtures.sample("image.webp")))))
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents", method: .post, headers: [.contentType: "multipart/form-data; boundary=b"], body: body) {
                #expect($0.status == .accepted)
            }
            let query = owner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            try await client.execute(uri: "/?owner=\(query)", method: .get) { response in
                let page = String(buffer: response.body)
                // Compared as bytes: String.contains would see "&gt;" + U+0301 as another grapheme.
                let bytes = Data(page.utf8)
                for tag in ["<img src=x", "<script>alert"] { #expect(bytes.range(of: Data(tag.utf8)) == nil, "\(tag) reached the page") }
                #expect(bytes.range(of: Data("&lt;img src=x onerror=alert(1)&gt;".utf8)) != nil, "the title is shown, as text")
            }
        }
    }
}
