import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// The document model the apps need, over HTTP on both backends: a description and a school set at
/// upload and by `PATCH`, searched and filtered; a document shared with schools, one link each;
/// an owner's schools.
@Suite struct DocumentModelRouteTests {
    static let bearer = SharesTests.bearer

    static func patch(_ client: some TestClientProtocol, _ id: String, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/v1/documents/\(id)", method: .patch, headers: bearer, body: ByteBuffer(string: body)) { response in
            (response.status, (try? json(response)) ?? [:])
        }
    }

    static func listed(_ client: some TestClientProtocol, _ query: String) async throws -> [String] {
        try await client.execute(uri: "/v1/documents?\(query)", method: .get, headers: bearer) { response in
            #expect(response.status == .ok, "\(query)")
            return (try json(response)["documents"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }.sorted()
        }
    }

    @Test(arguments: TestBackend.available) func descriptionsAndSchoolsAreSetSearchedAndFiltered(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            // A form's textarea sends CRLF line breaks: kept as \n.
            let body = multipart(
                boundary: "b",
                fields: [
                    "owner": "ana", "title": "Coach letter", "description": "Captain, varsity\r\nAll-state 2026",
                    "school": "  Lakeside Prep "
                ],
                file: ("Rivera_Letter.pdf", Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))))
            var headers = Self.bearer
            headers[.contentType] = "multipart/form-data; boundary=b"
            let id = try await client.execute(uri: "/v1/documents", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .accepted, "\(String(buffer: response.body))")
                return try #require(try json(response)["document_id"] as? String)
            }
            try await client.execute(uri: "/v1/documents/\(id)", method: .get, headers: Self.bearer) { response in
                let document = try json(response)
                #expect(document["description"] as? String == "Captain, varsity\nAll-state 2026" && document["school"] as? String == "Lakeside Prep")
            }
            _ = try await client.execute(
                uri: "/v1/documents?filename=stats.pdf&title=Stats&owner=ana&school=North%20High&description=Fall%20term",
                method: .post, headers: Self.bearer, body: try sample("document-5-pages.pdf")
            ) { $0.status }

            #expect(try await Self.listed(client, "q=ALL-STATE") == ["Coach letter"], "a word of the description, any case")
            #expect(try await Self.listed(client, "q=rivera_letter") == ["Coach letter"], "the file name")
            #expect(try await Self.listed(client, "q=fall") == ["Stats"])
            #expect(try await Self.listed(client, "school=North%20High") == ["Stats"])
            #expect(try await Self.listed(client, "owner=ana&school=Lakeside%20Prep") == ["Coach letter"])

            let (status, relabelled) = try await Self.patch(client, id, #"{"description": "Two seasons as captain", "school": ""}"#)
            #expect(
                status == .ok && relabelled["description"] as? String == "Two seasons as captain" && relabelled["school"] == nil,
                "an empty school is none")
            #expect(try await Self.listed(client, "q=all-state").isEmpty)
            #expect(try await Self.listed(client, "q=two%20seasons") == ["Coach letter"])
            #expect(try await Self.listed(client, "school=Lakeside%20Prep").isEmpty)
            try await client.execute(uri: "/v1/stats?owner=ana", method: .get, headers: Self.bearer) { response in
                let statistics = try json(response)
                #expect(statistics["by_school"] as? [String: Int] == ["North High": 1], "the kept counts follow")
            }

            let long = String(repeating: "a", count: 2001)
            for bad in [#"{"description": "\#(long)"}"#, #"{"school": "a\u0007b"}"#, #"{"description": "a\u0000b"}"#] {
                let (refused, error) = try await Self.patch(client, id, bad)
                #expect(refused == .badRequest && (error["error"] as? [String: Any])?["code"] as? String == "bad_request", "\(bad.prefix(40))")
            }
            try await client.execute(
                uri: "/v1/documents?filename=x.pdf&school=a%07b", method: .post, headers: Self.bearer,
                body: try sample("document-5-pages.pdf")
            ) { #expect($0.status == .badRequest, "an upload's school is held to the same rules") }
        }
    }

    /// `PUT /v1/documents/{id}/schools` keeps one live link per school listed: new schools get a
    /// link (absolute), listed ones keep theirs (the same link, found again), the others are revoked (410). An owner's
    /// schools count their documents and shares.
    @Test(arguments: TestBackend.available) func aDocumentIsSharedWithExactlyTheSchoolsListed(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: SharesTests.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await SharesTests.upload(client, harness, "document-5-pages.pdf")
            func put(_ body: String) async throws -> (HTTPResponse.Status, [[String: Any]]) {
                try await client.execute(uri: "/v1/documents/\(id)/schools", method: .put, headers: Self.bearer, body: ByteBuffer(string: body)) {
                    ($0.status, (try? json($0))?["schools"] as? [[String: Any]] ?? [])
                }
            }
            let (status, first) = try await put(#"{"schools": ["State University", "Lakeside Prep", "State University"], "password": "go team"}"#)
            #expect(status == .ok && first.map { $0["school"] as? String } == ["State University", "Lakeside Prep"], "each school once, in order")
            let links = first.compactMap { ($0["share"] as? [String: Any])?["link"] as? String }
            #expect(links.count == 2 && links.allSatisfy { $0.hasPrefix("http://") && $0.contains("/s/") }, "\(links)")
            let state = try #require(first.first?["share"] as? [String: Any])
            #expect(state["password"] as? Bool == true && state["school"] as? String == "State University")

            let (_, second) = try await put(#"{"schools": ["State University", "North High"]}"#)
            let kept = try #require(second.first?["share"] as? [String: Any])
            #expect(
                kept["share_id"] as? String == state["share_id"] as? String && kept["link"] as? String == links.first,
                "a listed school keeps its link, given again")
            #expect((second.last?["share"] as? [String: Any])?["link"] is String, "a new school gets one")
            let lakeside = try #require(links.last.flatMap(URL.init(string:))?.path)
            try await client.execute(uri: lakeside, method: .get) { #expect($0.status == .gone, "an unlisted school's link is revoked") }

            let shares = try await SharesTests.shares(client, id)
            #expect(
                shares.filter { $0["status"] as? String == "live" }.compactMap { $0["school"] as? String }.sorted() == [
                    "North High", "State University"
                ])
            #expect(shares.first { $0["school"] as? String == "State University" }?["link"] as? String == links.first, "a live link is listed whole")
            #expect(shares.first { $0["school"] as? String == "Lakeside Prep" }.map { $0["link"] == nil } == true, "a revoked one is not")
            _ = try await Self.patch(client, id, #"{"school": "North High"}"#)
            try await client.execute(uri: "/v1/schools?owner=ana", method: .get, headers: Self.bearer) { response in
                let schools = try json(response)["schools"] as? [[String: Any]] ?? []
                #expect(schools.map { $0["name"] as? String } == ["North High", "State University"])
                #expect(schools.map { $0["documents"] as? Int } == [1, 0] && schools.map { $0["shared_documents"] as? Int } == [1, 1])
            }
            let (refused, _) = try await put(#"{"schools": ["a\u0007b"]}"#)
            #expect(refused == .badRequest)
            let (cleared, none) = try await put(#"{"schools": []}"#)
            #expect(cleared == .ok && none.isEmpty)
            #expect(try await SharesTests.shares(client, id).allSatisfy { $0["status"] as? String == "revoked" })
        }
    }
}
