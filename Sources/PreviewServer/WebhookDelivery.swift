import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewDomain
import ServiceLifecycle

/// Posts each ``OwnerEvent`` to the webhook its operator configured (`serve --webhook-url`), in
/// the order kept, as the JSON `GET /v1/events` gives it, signed: `X-DocPreview-Signature:
/// t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>" with the secret, hex>`, with the event's id in
/// `X-DocPreview-Event-Id`. An answer of 2xx within ``timeout`` delivers it, and it is never sent
/// again (the cursor is kept in the index, per target, so a restart goes on where it was); any other
/// answer is retried after 1, 2, 4 … s, at most ``longestPause`` apart, the events after it waiting
/// their turn. A receiver that answered but whose answer was lost sees the event again: it knows it by
/// its id. A new target starts with the events kept from then on.
package struct WebhookDelivery: Service {
    let documents: DocumentService
    let target: URL
    let secret: [UInt8]
    let logger: Logger

    /// The longest an answer is waited for.
    static let timeout: TimeAmount = .seconds(10)
    /// The longest pause between two tries of one event.
    static let longestPause: Duration = .seconds(300)

    package init(documents: DocumentService, target: URL, secret: [UInt8], logger: Logger) {
        (self.documents, self.target, self.secret, self.logger) = (documents, target, secret, logger)
    }

    package func run() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        await cancelWhenGracefulShutdown {
            try? await deliverAll(with: client)
        }
        try? await client.shutdown()
        // A delivery ends only with the server's shutdown; wait for it, as a service of the group.
        try? await gracefulShutdown()
    }

    /// Delivers events until cancelled. An index that cannot be read (or written) is tried again
    /// after the same pauses: the delivery never ends on its own, for a service that ends would end
    /// the server with it.
    private func deliverAll(with client: HTTPClient) async throws {
        var cursor: Int64?
        var pause = Duration.seconds(1)
        while !Task.isCancelled && !documents.changes.waitsEnded {
            do {
                let from: Int64
                if let cursor { from = cursor } else { from = try await documents.webhookCursor(target: target.absoluteString) }
                cursor = from
                for event in try await documents.events(since: from, owner: nil, limit: 100, wait: .seconds(30)) {
                    var retry = Duration.seconds(1)
                    while try await !deliver(event, with: client) {
                        try await documents.clock.sleep(until: documents.clock.instant + retry)
                        retry = min(retry * 2, Self.longestPause)
                    }
                    // Delivered: not sent again by this process, even if the cursor's write fails (the next one carries it).
                    cursor = event.sequence
                    try await documents.webhookDelivered(target: target.absoluteString, through: event.sequence)
                }
                pause = .seconds(1)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.error("the webhook could not read or record its events", metadata: ["preview.error": "\(error)"])
                try await documents.clock.sleep(until: documents.clock.instant + pause)
                pause = min(pause * 2, Self.longestPause)
            }
        }
    }

    /// One try: whether the target answered 2xx.
    private func deliver(_ event: OwnerEvent, with client: HTTPClient) async throws -> Bool {
        try Task.checkCancellation()
        let body = try StableJSON.encode(event, keys: .snakeCase)
        var request = HTTPClientRequest(url: target.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-DocPreview-Event-Id", value: "\(event.sequence)")
        request.headers.add(
            name: "X-DocPreview-Signature", value: Self.signature(of: body, at: documents.clock.unixSeconds, with: SymmetricKey(data: secret)))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: Self.timeout)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let delivered = (200..<300).contains(response.status.code)
            ServiceMetrics.webhooks(outcome: delivered ? "delivered" : "refused")
            if !delivered {
                logger.warning(
                    "the webhook refused an event", metadata: ["preview.event": "\(event.sequence)", "preview.status": "\(response.status.code)"])
            }
            return delivered
        } catch {
            try Task.checkCancellation()
            ServiceMetrics.webhooks(outcome: "failed")
            logger.warning("the webhook could not be reached", metadata: ["preview.event": "\(event.sequence)", "preview.error": "\(error)"])
            return false
        }
    }

    /// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: what a receiver checks (and that `t` is recent).
    package static func signature(of body: [UInt8], at seconds: Int, with secret: SymmetricKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("\(seconds).".utf8) + body, using: secret)
        return "t=\(seconds),v1=" + code.map { String(format: "%02x", $0) }.joined()
    }
}
