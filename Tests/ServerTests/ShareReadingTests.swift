import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewServer
import PreviewTestSupport
import Testing

/// Issue 70, item 1: what each school read through its link. A share's page reports the seconds
/// each page was in view (`POST /s/{token}/reading`, with the pass only its opened page has); its
/// owner reads each visit (`GET /v1/documents/{id}/shares/{share}/visits`) and the sum on the list
/// of shares. Times are the test's clock: a report can claim no more than the view has lasted.
@Suite struct ShareReadingTests {
    typealias Shares = SharesTests

    /// The pass in a share's page.
    static func pass(_ client: some TestClientProtocol, _ url: String) async throws -> String {
        let html = try await client.execute(uri: url, method: .get) { String(buffer: $0.body) }
        return try #require(html.firstMatch(of: /data-reading-pass="([^"]+)"/).map { String($0.output.1) })
    }

    static func report(
        _ client: some TestClientProtocol, _ url: String, _ body: [String: Any], expect status: HTTPResponse.Status, _ note: String = ""
    ) async throws {
        let bytes = try JSONSerialization.data(withJSONObject: body)
        try await client.execute(uri: url + "/reading", method: .post, body: ByteBuffer(bytes: bytes)) { response in
            #expect(response.status == status, "\(note) \(String(buffer: response.body))")
        }
    }

    static func visits(_ client: some TestClientProtocol, _ id: String, _ share: String) async throws -> [[String: Any]] {
        try await client.execute(uri: "/v1/documents/\(id)/shares/\(share)/visits", method: .get, headers: Shares.bearer) { response in
            #expect(response.status == .ok)
            return try json(response)["visits"] as? [[String: Any]] ?? []
        }
    }

    /// The 5-page sample uploaded as ana's and shared with North High: its id, the link's path, the share's id.
    static func sharedTranscript(_ client: some TestClientProtocol, _ harness: Harness) async throws -> (id: String, url: String, share: String) {
        let id = try await Shares.upload(client, harness, "document-5-pages.pdf")
        let made = try await Shares.share(client, id, #"{"label": "North High"}"#)
        return (id, try #require(made["url"] as? String), try #require(made["share_id"] as? String))
    }

    /// Seconds per page of a reading object, by page.
    static func seconds(_ reading: [String: Any]?) -> [Int: Double] {
        Dictionary(
            uniqueKeysWithValues: (reading?["pages"] as? [[String: Any]] ?? []).compactMap { page in
                (page["page"] as? Int).flatMap { number in (page["seconds"] as? Double).map { (number, $0) } }
            })
    }

    @Test(arguments: TestBackend.available) func aSchoolsReadingIsKeptPerVisitAndSummed(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let (id, url, shareID) = try await Self.sharedTranscript(client, harness)
            let pass = try await Self.pass(client, url)
            let visitor = "visitor-0123456789"
            // A first view: page 1 for 40 s, then page 2 for 20 s, two zooms and a download; its
            // reports hold its totals so far.
            try await Self.report(client, url, ["pass": pass, "visitor": visitor, "view": "view-aaaaaaaa", "pages": ["1": 10]], expect: .noContent)
            harness.clock.advance(by: .seconds(60))
            let totals: [String: Any] = [
                "pass": pass, "visitor": visitor, "view": "view-aaaaaaaa", "pages": ["1": 40, "2": 20], "zooms": 2, "downloads": 1
            ]
            try await Self.report(client, url, totals, expect: .noContent)
            try await Self.report(client, url, totals, expect: .noContent, "the same report again changes nothing")
            // A claim past the time the view has lasted (60 s, and 30 s of slack) is cut to it.
            try await Self.report(
                client, url, ["pass": pass, "visitor": visitor, "view": "view-aaaaaaaa", "pages": ["3": 5_000]], expect: .noContent)
            // The same visitor five minutes later: the same visit; an hour later (the page loaded again), another.
            harness.clock.advance(by: .seconds(300))
            try await Self.report(
                client, url, ["pass": pass, "visitor": visitor, "view": "view-bbbbbbbb", "pages": ["2": 12], "zooms": 1], expect: .noContent)
            harness.clock.advance(by: .seconds(3600))
            let later = try await Self.pass(client, url)
            try await Self.report(client, url, ["pass": later, "visitor": visitor, "view": "view-cccccccc", "pages": ["5": 7]], expect: .noContent)

            let visits = try await Self.visits(client, id, shareID)
            #expect(visits.count == 2, "\(visits)")
            #expect(visits.first?["views"] as? Int == 1 && visits.last?["views"] as? Int == 2)
            #expect(Self.seconds(visits.first?["reading"] as? [String: Any]) == [5: 7])
            #expect(Self.seconds(visits.last?["reading"] as? [String: Any]) == [1: 40, 2: 32, 3: 90])
            let firstVisit = visits.last?["reading"] as? [String: Any]
            #expect(firstVisit?["zooms"] as? Int == 3 && firstVisit?["downloads"] as? Int == 1, "\(firstVisit ?? [:])")
            let listed = try #require(try await Shares.shares(client, id).first?["reading"] as? [String: Any])
            #expect(listed["visits"] as? Int == 2 && listed["last_visit_at"] is String)
            #expect(Self.seconds(listed["reading"] as? [String: Any]) == [1: 40, 2: 32, 3: 90, 5: 7])
            #expect((listed["reading"] as? [String: Any])?["watched"] == nil, "no video, no watched share")
            #expect((listed["reading"] as? [String: Any])?["zooms"] as? Int == 3 && (listed["reading"] as? [String: Any])?["downloads"] as? Int == 1)
        }
    }

    /// Issue 70, item 1: a school's first opening of its link is an event its owner's app can wait
    /// for: `GET /v1/events?wait=` answers as it is kept, once per share, in the order kept.
    @Test(arguments: TestBackend.available) func aFirstOpeningReachesAWaitingReader(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let (id, url, shareID) = try await Self.sharedTranscript(client, harness)
            let changes = harness.server.documents.changes
            async let waited = client.execute(uri: "/v1/events?since=0&wait=30", method: .get, headers: Shares.bearer) { try json($0) }
            try await onOwnThread { try waitUntil("the reader waits") { changes.waiting == 1 } }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            let answer = try await waited
            let events = try #require(answer["events"] as? [[String: Any]])
            #expect(events.count == 1 && events.first?["kind"] as? String == "share.first_opened", "\(answer)")
            #expect(events.first?["share_id"] as? String == shareID && events.first?["document_id"] as? String == id)
            #expect(events.first?["owner"] as? String == "ana" && events.first?["label"] as? String == "North High")
            let next = try #require(answer["next"] as? Int)
            // Opened again: no second event. Nothing new: an empty answer when the wait ends.
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            async let empty = client.execute(uri: "/v1/events?since=\(next)&wait=5", method: .get, headers: Shares.bearer) { try json($0) }
            try await onOwnThread { try waitUntil("the second reader waits") { changes.waiting == 1 } }
            harness.clock.advance(by: .seconds(6))
            let none = try await empty
            #expect((none["events"] as? [Any])?.isEmpty == true && none["next"] as? Int == next, "\(none)")
            let others = try await client.execute(uri: "/v1/events?since=0&owner=someone-else", method: .get, headers: Shares.bearer) { try json($0) }
            #expect((others["events"] as? [Any])?.isEmpty == true, "another owner's events only")
            try await client.execute(uri: "/v1/events?since=0", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/v1/events?since=-1", method: .get, headers: Shares.bearer) { #expect($0.status == .badRequest) }
        }
    }

    /// Issue 70, item 1: an app given a share's signed URLs (`POST …/signed-urls {"share"}`) shows
    /// them as the share's page would (bound to the share, ending with it) and reports as the page
    /// does, to the address and with the pass it was given; another share's pass is refused.
    @Test func anAppPlayingASharesSignedURLsReports() async throws {
        let harness = try await Harness(token: Shares.token, signingKeys: try SigningKeys([SignedURLTests.current]))
        defer { harness.folder.remove() }
        try await harness.test { client in
            let (id, _, shareID) = try await Self.sharedTranscript(client, harness)
            let otherShare = try #require(try await Shares.share(client, id, #"{"label": "South High"}"#)["share_id"] as? String)
            let links = try await client.execute(
                uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: Shares.bearer, body: ByteBuffer(string: #"{"share": "\#(shareID)"}"#)
            ) { try json($0) }
            let pages = try #require(links["pages"] as? [String])
            #expect(pages.count == 5 && pages.allSatisfy { $0.contains("share=\(shareID)") }, "\(pages)")
            let reading = try #require(links["reading"] as? [String: Any])
            let (address, pass) = (try #require(reading["url"] as? String), try #require(reading["pass"] as? String))
            #expect(address == "/s/shares/\(shareID)/reading")
            try await client.execute(uri: pages[1], method: .get) { #expect($0.status == .ok) }

            func post(_ address: String, _ body: [String: Any]) async throws -> HTTPResponse.Status {
                let bytes = try JSONSerialization.data(withJSONObject: body)
                return try await client.execute(uri: address, method: .post, body: ByteBuffer(bytes: bytes)) { $0.status }
            }
            harness.clock.advance(by: .seconds(10))
            let report: [String: Any] = ["pass": pass, "visitor": "app-visitor-01", "view": "app-view-0001", "pages": ["2": 6], "zooms": 1]
            #expect(try await post(address, report) == .noContent)
            let visits = try await Self.visits(client, id, shareID)
            #expect(Self.seconds(visits.first?["reading"] as? [String: Any]) == [2: 6])
            #expect((visits.first?["reading"] as? [String: Any])?["zooms"] as? Int == 1)
            #expect(try await post("/s/shares/\(otherShare)/reading", report) == .forbidden, "a pass works for its own share only")
            #expect(try await post("/s/shares/\(UUID().uuidString.lowercased())/reading", report) == .notFound)
            try await client.execute(
                uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: Shares.bearer,
                body: ByteBuffer(string: #"{"share": "\#(UUID().uuidString.lowercased())"}"#)
            ) { #expect($0.status == .notFound, "only a share of this document") }

            // Revoked: its URLs and its reports end with it.
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: Shares.bearer) { #expect($0.status == .ok) }
            harness.clock.advance(by: .seconds(30))
            try await client.execute(uri: pages[1], method: .get) { #expect($0.status == .gone) }
            #expect(try await post(address, report.merging(["view": "app-view-0002"]) { $1 }) == .gone)
        }
    }

    @Test func reportsAreCheckedBoundedAndPaced() async throws {
        let harness = try await Harness(token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let (id, url, shareID) = try await Self.sharedTranscript(client, harness)
            let otherURL = try #require(try await Shares.share(client, id, #"{"label": "South High"}"#)["url"] as? String)
            let pass = try await Self.pass(client, url)
            let report: [String: Any] = ["pass": pass, "visitor": "visitor-0123456789", "view": "view-aaaaaaaa", "pages": ["1": 3]]
            // Another share's pass, a pass altered, ids that are not ids, a report past 1 KB.
            try await Self.report(client, otherURL, report, expect: .forbidden, "a pass works for its own share only")
            try await Self.report(client, url, report.merging(["pass": pass + "x"]) { $1 }, expect: .forbidden, "an altered pass")
            try await Self.report(client, url, report.merging(["visitor": "me"]) { $1 }, expect: .badRequest, "a short id")
            try await Self.report(client, url, report.merging(["pages": ["0": 1]]) { $1 }, expect: .badRequest, "page 0")
            try await Self.report(client, url, report.merging(["played": [[5, 1]]]) { $1 }, expect: .badRequest, "a stretch backwards")
            try await Self.report(
                client, url, report.merging(["pages": ["1": String(repeating: "9", count: 1100)]]) { $1 }, expect: .contentTooLarge,
                "past 1 KB")
            #expect(try await Self.visits(client, id, shareID).isEmpty, "nothing refused was kept")
            // One address: 20 at once, then one a second.
            var accepted = 0
            for _ in 0..<25 {
                let bytes = try JSONSerialization.data(withJSONObject: report)
                try await client.execute(uri: url + "/reading", method: .post, body: ByteBuffer(bytes: bytes)) { response in
                    if response.status == .noContent {
                        accepted += 1
                    } else {
                        #expect(response.status == .tooManyRequests && response.headers[.retryAfter] != nil)
                    }
                }
            }
            // The refusals above (but the one past 1 KB, never read) spent 5 of the 20; opening the page is paced apart.
            #expect(accepted == 15, "\(accepted)")
            harness.clock.advance(by: .seconds(1))
            try await Self.report(client, url, report, expect: .noContent, "a second later")
            // A revoked share keeps nothing more.
            try await client.execute(uri: "/v1/shares/\(shareID)", method: .delete, headers: Shares.bearer) { #expect($0.status == .ok) }
            harness.clock.advance(by: .seconds(30))
            try await Self.report(client, url, report.merging(["pages": ["2": 4]]) { $1 }, expect: .gone)
            #expect(try await Self.seconds(Self.visits(client, id, shareID).first?["reading"] as? [String: Any]) == [1: 3])
            try await client.execute(uri: "/v1/documents/\(id)/shares/\(UUID().uuidString.lowercased())/visits", method: .get, headers: Shares.bearer)
            {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/v1/documents/\(id)/shares/\(shareID)/visits", method: .get) {
                #expect($0.status == .unauthorized, "the owner's token only")
            }
        }
    }
}
