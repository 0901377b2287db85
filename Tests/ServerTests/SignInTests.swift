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

@Suite struct SignInTests {
    private let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The session cookie a correct sign-in sets, checked for its flags.
    private func signIn(_ client: any TestClientProtocol) async throws -> String {
        try await client.execute(
            uri: "/ui/signin", method: .post, headers: form,
            body: ByteBuffer(string: "token=correct-horse&return=%2F%3Fowner%3Dana")
        ) { response in
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/?owner=ana")
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("correct-horse"), "the cookie carries a derived session, not the token")
            return String(cookie.split(separator: ";")[0])
        }
    }

    @Test func browsersGetAFormAndACookieNotABare401() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            let signInPage = try await client.execute(uri: "/?owner=ana", method: .get) { response in
                #expect(response.status == .seeOther, "a browser without a session is sent to sign in")
                return try #require(response.headers[.location])
            }
            #expect(signInPage == "/ui/signin?return=%2F%3Fowner%3Dana", "and comes back to the page it asked for")
            try await client.execute(uri: signInPage, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                let form = String(buffer: response.body)
                #expect(form.contains("name=\"token\"") && form.contains("value=\"/?owner=ana\""))
            }
            try await client.execute(uri: "/ui/signin", method: .post, headers: form, body: ByteBuffer(string: "token=wrong&return=/")) {
                #expect($0.status == .unauthorized)
                #expect($0.headers[.setCookie] == nil)
            }
            try await client.execute(
                uri: "/ui/signin", method: .post, headers: form,
                body: ByteBuffer(string: "token=correct-horse&return=%2F%2Fevil.example%2F")
            ) {
                #expect($0.headers[.location] == "/", "no redirect off the site")
            }
            let cookie = try await signIn(client)
            try await client.execute(uri: "/?owner=ana", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<input type=\"hidden\" name=\"csrf\" value=\""), "the form carries the session's CSRF token")
                #expect(!page.contains("csrf="), "never in a URL")
            }
        }
    }

    @Test func cookieWritesNeedTheCSRFTokenAndTheSameOrigin() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            let cookie = try await signIn(client)
            let csrf = try await client.execute(uri: "/?owner=ana", method: .get, headers: [.cookie: cookie]) { response in
                String(try #require(String(buffer: response.body).firstMatch(of: /name="csrf" value="([A-Za-z0-9_-]+)"/)?.output.1))
            }
            let image = Array(try Data(contentsOf: Fixtures.sample("image.webp")))
            func upload(csrf: String?) -> ByteBuffer {
                multipart(boundary: "b", fields: ["owner": "ana"].merging(csrf.map { ["csrf": $0] } ?? [:]) { $1 }, file: ("a.webp", image))
            }
            let type: HTTPFields = [.contentType: "multipart/form-data; boundary=b", .cookie: cookie]
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: nil)) {
                #expect($0.status == .forbidden, "no CSRF token")
            }
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: csrf + "x")) {
                #expect($0.status == .forbidden, "a wrong CSRF token")
            }
            try await client.execute(uri: "/ui/upload?csrf=\(csrf)", method: .post, headers: type, body: upload(csrf: nil)) {
                #expect($0.status == .forbidden, "the token in the URL does not count")
            }
            var crossSite = type
            crossSite[HTTPField.Name("Origin")!] = "http://evil.example"
            try await client.execute(uri: "/ui/upload", method: .post, headers: crossSite, body: upload(csrf: csrf)) {
                #expect($0.status == .forbidden, "another site's page")
            }
            #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
            try await client.execute(uri: "/ui/upload", method: .post, headers: type, body: upload(csrf: csrf)) {
                #expect($0.status == .seeOther)
            }
        }
    }

    /// A page on another site posting a `text/plain` form (no preflight) to an open server.
    @Test func crossSiteWritesAreRefusedEvenWithoutAToken() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            for headers: HTTPFields in [
                [.contentType: "text/plain", HTTPField.Name("Origin")!: "http://evil.example"],
                [.contentType: "text/plain", HTTPField.Name("Origin")!: "null"],
                [.contentType: "text/plain", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
            ] {
                try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, headers: headers, body: try sample("image.webp")) {
                    #expect($0.status == .forbidden)
                    let code = try errorCode($0); #expect(code == "forbidden")
                }
            }
            #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) {
                #expect($0.status == .accepted, "clients that are not browsers send no Origin")
            }
        }
    }
}
