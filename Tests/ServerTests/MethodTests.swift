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

@Suite struct MethodTests {
    @Test func otherMethodsOnKnownPathsAre405WithAllow() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            for (uri, method, allow) in [
                ("/v1/documents", HTTPRequest.Method.put, "POST, GET"), ("/v1/stats", .delete, "GET"),
                ("/v1/documents/abc/content", .post, "GET, HEAD"),
                ("/v1/documents/abc/preview", .put, "GET"), ("/healthz", .trace, "GET")
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    #expect(response.headers[.allow] == allow)
                    let code = try errorCode(response)
                    #expect(code == "method_not_allowed")
                }
            }
            try await client.execute(uri: "/no/such/route", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
