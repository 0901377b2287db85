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

@Suite struct AuthTests {
    @Test func bearerTokenGuardsAllButHealth() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for headers: HTTPFields in [
                [:], [.authorization: "Bearer wrong-horse!"], [.authorization: "Bearer correct-hors"], [.authorization: "correct-horse"]
            ] {
                try await client.execute(uri: "/v1/stats", method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized)
                    let code = try errorCode(response); #expect(code == "unauthorized")
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                }
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer correct-horse"]) { #expect($0.status == .ok) }
            // The raw token is no cookie: browsers sign in (SignInTests).
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.cookie: "docpreview_session=correct-horse"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/v1/documents?filename=a.webp", method: .post, body: try sample("image.webp")) {
                #expect($0.status == .unauthorized)
            }
        }
        #expect(try await harness.pipeline.store.blobs.allBlobs().isEmpty)
    }
}
