import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewServer
import PreviewTestSupport
import ServiceLifecycle
import Synchronization
import Testing

/// Issue 70, item 1: a school's first opening reaches its owner's webhook, signed, tried again
/// after a refusal (by the service's clock, which the test moves), and never sent again once
/// answered. The receiver is a server of the test's own on loopback.
@Suite struct WebhookTests {
    /// What the receiver was sent: each request's event id, signature and body.
    final class Received: Sendable {
        let requests = Mutex<[(id: String, signature: String, body: [UInt8])]>([])
        /// Answers 500 to the first this many.
        let refusals: Int
        init(refusals: Int) { self.refusals = refusals }
        var count: Int { requests.withLock { $0.count } }
    }

    /// A receiver on a free loopback port: its port, and the task that runs it (cancel to stop).
    static func receiver(_ received: Received) async throws -> (port: Int, task: Task<Void, any Error>) {
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let (id, signature) = (
                request.headers[HTTPField.Name("X-DocPreview-Event-Id")!] ?? "", request.headers[HTTPField.Name("X-DocPreview-Signature")!] ?? ""
            )
            let index = received.requests.withLock { requests in
                requests.append((id, signature, Array(buffer: body)))
                return requests.count
            }
            return index <= received.refusals ? .internalServerError : .noContent
        }
        let port = Mutex<Int?>(nil)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }, logger: Logger(label: "receiver"))
        let task = Task { try await app.runService() }
        try await onOwnThread { try waitUntil("the receiver listens") { port.withLock { $0 } != nil } }
        return (port.withLock { $0 }!, task)
    }

    @Test(arguments: TestBackend.available) func aFirstOpeningIsPostedSignedAndTriedAgain(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: SharesTests.token)
        defer { harness.folder.remove() }
        let received = Received(refusals: 1)
        let (port, receiving) = try await Self.receiver(received)
        defer { receiving.cancel() }
        let secret = [UInt8](repeating: 7, count: 32)
        let delivery = WebhookDelivery(
            documents: harness.server.documents, target: URL(string: "http://127.0.0.1:\(port)/hook")!, secret: secret,
            logger: Logger(label: "webhook"))
        let delivering = Task { try await delivery.run() }
        defer { delivering.cancel() }
        try await harness.test { client in
            let url = try await ShareReadingTests.sharedTranscript(client, harness).url
            // The delivery reads its cursor, then waits for an event.
            try await onOwnThread { try waitUntil("the delivery waits") { harness.server.documents.changes.waiting == 1 } }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            try await onOwnThread { try waitUntil("the first try") { received.count == 1 } }
            // Refused: tried again a second later by the service's clock, not before.
            try await onOwnThread { try waitUntil("the pause") { harness.clock.sleeping >= 1 } }
            #expect(received.count == 1)
            harness.clock.advance(by: .seconds(1))
            try await onOwnThread { try waitUntil("the second try") { received.count == 2 } }
            // Answered: opened again, nothing more is sent (the delivery waits for the next event).
            try await onOwnThread { try waitUntil("the delivery waits again") { harness.server.documents.changes.waiting == 1 } }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            harness.clock.advance(by: .seconds(60))
            try await onOwnThread { try waitUntil("the delivery waits again") { harness.server.documents.changes.waiting == 1 } }
            #expect(received.count == 2, "one event, delivered once")
        }
        let requests = received.requests.withLock { $0 }
        #expect(requests.map(\.id) == ["1", "1"], "the same event tried twice")
        for request in requests {
            let parts = Dictionary(
                uniqueKeysWithValues: request.signature.split(separator: ",").map { part in
                    let pair = part.split(separator: "=", maxSplits: 1)
                    return (String(pair[0]), String(pair.count > 1 ? pair[1] : ""))
                })
            let expected = HMAC<SHA256>.authenticationCode(for: Array("\(parts["t"] ?? "").".utf8) + request.body, using: SymmetricKey(data: secret))
            #expect(parts["v1"] == expected.map { String(format: "%02x", $0) }.joined(), "signed with the secret over t and the body")
            let event = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            #expect(event["kind"] as? String == "share.first_opened" && event["label"] as? String == "North High" && event["id"] as? Int == 1)
        }
    }
}
