import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewDocuments
@testable import PreviewServer
import Testing

/// Links from a phone's share sheet belong to the device whose token sent them: another device,
/// even one that sends the same `client_id`, learns nothing of them and cannot fill their queue.
/// Nothing here is fetched: the in-process server runs no fetchers, so the links are only recorded.
@Suite struct DeviceDownloadsTests {
    static let token = "correct-horse-battery-staple"

    private func submit(_ client: some TestClientProtocol, _ link: String, clientID: String, token: String) async throws -> (
        status: HTTPResponse.Status, body: [String: Any]
    ) {
        let body = #"{"url": "\#(link)", "client_id": "\#(clientID)", "timestamp": "2026-11-26T10:00:00Z"}"#
        return try await client.execute(
            uri: "/api/v1/download", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
            body: ByteBuffer(string: body)
        ) { ($0.status, try json($0)) }
    }

    /// A JSON body past its route's limit is `413 file_too_large` in the route's error object, not
    /// NIO's empty answer (found by `scripts/api-fuzz`): on the download routes and on `/v1`.
    @Test func bodiesPastTheLimitGetTheErrorObject() async throws {
        let harness = try await Harness(.sqlite, token: Self.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let large = ByteBuffer(string: #"{"url": "\#(String(repeating: "x", count: 70_000))", "client_id": "a"}"#)
            for (uri, method) in [("/api/v1/download", HTTPRequest.Method.post), ("/v1/documents/any/shares", .post), ("/v1/documents/any", .patch)] {
                try await client.execute(
                    uri: uri, method: method, headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"],
                    body: large
                ) { response in
                    #expect(response.status == .contentTooLarge && response.headers[.contentType]?.hasPrefix("application/json") == true, "\(uri)")
                    let body = try json(response)
                    #expect(
                        (body["error"] as? String ?? (body["error"] as? [String: Any])?["code"] as? String) == "file_too_large", "\(uri): \(body)")
                }
            }
        }
    }

    @Test(arguments: TestBackend.available) func downloadsAreKeptPerDevice(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        let (_, ana) = try await harness.server.documents.addDevice(name: "Ana's iPhone", owner: "ana")
        let (_, other) = try await harness.server.documents.addDevice(name: "Other phone", owner: "bo")
        let clientID = UUID().uuidString
        try await harness.test { client in
            let link = "https://www.tiktok.com/@ana/video/7"
            let first = try await submit(client, link, clientID: clientID, token: ana)
            #expect(first.status == .accepted && first.body["status"] as? String == "queued")
            let again = try await submit(client, link, clientID: clientID, token: ana)
            #expect(again.status == .ok && again.body["download_id"] as? String == first.body["download_id"] as? String)
            #expect(again.body["status"] as? String == "queued" && again.body["message"] as? String == "Already received; queued for download.")

            let stranger = try await submit(client, link, clientID: clientID, token: other)
            #expect(stranger.status == .accepted, "the other device's link is its own")
            #expect(stranger.body["download_id"] as? String != first.body["download_id"] as? String)
            let listed = try await client.execute(
                uri: "/api/v1/downloads?client_id=\(clientID)", method: .get,
                headers: [.authorization: "Bearer \(other)"]
            ) { try json($0)["downloads"] as? [[String: Any]] ?? [] }
            #expect(listed.map { $0["download_id"] as? String } == [stranger.body["download_id"] as? String], "it sees its own only")
            try await client.execute(
                uri: "/api/v1/download/\(first.body["download_id"] as? String ?? "")", method: .get,
                headers: [.authorization: "Bearer \(other)"]
            ) { #expect($0.status == .notFound) }

            for index in 0..<DocumentService.maxPendingDownloads {
                _ = try await submit(client, "https://www.tiktok.com/@bo/video/\(index + 100)", clientID: clientID, token: other)
            }
            #expect(try await submit(client, "https://www.tiktok.com/@bo/video/99", clientID: clientID, token: other).status == .tooManyRequests)
            let next = try await submit(client, "https://www.tiktok.com/@ana/video/8", clientID: clientID, token: ana)
            #expect(next.status == .accepted, "another device's full queue is not this one's")
        }
    }
}
