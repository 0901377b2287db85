import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewPipeline
@testable import PreviewServer
import PreviewStore
import PreviewTestSupport
import Testing

/// Fairness under hostile load: slow pages end and are remembered, owners take turns, and what a
/// stranger can send (host names, wrong tokens, slow bodies) holds only its own share.
@Suite struct FairnessTests {
    /// A queued document of `owner`, enqueued as an upload would be.
    private func enqueue(_ harness: Harness, owner: String, title: String, bytes: [UInt8]) async throws -> Document {
        let hash = try await harness.pipeline.store.blobs.put(bytes: bytes, as: .original)
        let record = Document(
            id: UUID().uuidString.lowercased(), owner: owner, type: nil, title: title, filename: "\(title).pdf",
            sha256: hash, kind: .pdf, mime: FileKind.pdf.mime, size: bytes.count,
            facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
        return try await harness.queue.enqueue(record).document
    }

    @Test(arguments: TestBackend.available) func ownersTakeTurnsAtTheQueue(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let pdf = Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))
        var flood: [Document] = []
        for number in 0..<4 {
            flood.append(try await enqueue(harness, owner: "stranger", title: "slow \(number)", bytes: pdf + Array("\(number)".utf8)))
        }
        let other = try await enqueue(harness, owner: "coach", title: "roster", bytes: pdf + Array("other".utf8))
        let first = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(first.document.id == flood[0].id, "the oldest first while nobody runs")
        let second = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(second.document.id == other.id, "an owner with nothing running goes before the one with a job running")
        let third = try await #require(try harness.queue.lease(worker: "w", leaseSeconds: 60))
        #expect(third.document.id == flood[1].id)
    }

    /// A page that draws for ever ends at its budget with `timeout`; the same bytes then fail at once
    /// with the remembered failure, under any title, until `jobs retry` forgets it.
    @Test(arguments: TestBackend.available) func aSlowPageEndsAndIsRemembered(backend: TestBackend) async throws {
        var limits = Limits()
        limits.pageSeconds = 0.5
        let harness = try await Harness(backend, limits: limits)
        defer { harness.folder.remove() }
        let slow = ByteBuffer(bytes: SlowPDF.make())
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.pdf&owner=stranger", method: .post, body: slow) {
                #expect($0.status == .accepted)
            }
            let started = ContinuousClock.now
            try await harness.drainQueue()
            #expect(started.duration(to: .now) < .seconds(20), "the page stopped at its budget, not at the end of the drawing")
            let failed = try await #require(try harness.queue.jobs(status: .failed, limit: 10).first)
            #expect(failed.errorCode == .timeout)

            // Remembered: what the second upload gets is the stored failure, not a new render.
            let source = try await #require(try harness.pipeline.store.index.document(id: failed.documentID)).sha256
            let key = try harness.pipeline.derivativeKey(
                source: source, kind: .pdf, request: .thumbnail, renderer: harness.pipeline.renderers.pdfRenderer(on: .forTests)
            ).hash
            let remembered = try await #require(try harness.pipeline.store.index.failure(key: key))
            #expect(remembered.code == .timeout)
            try await harness.pipeline.store.index.recordFailure(
                RenderFailure(
                    key: key, sourceSha256: source,
                    error: PreviewError(.timeout, "remembered")))
            try await client.execute(uri: "/v1/documents?filename=b.pdf&owner=stranger&title=again", method: .post, body: slow) {
                #expect($0.status == .accepted)
            }
            try await harness.drainQueue()
            #expect(try await harness.queue.jobs(status: .failed, limit: 10).map(\.errorMessage).contains("remembered"))

            #expect(try await harness.pipeline.store.index.forgetFailures(source: source) == 1)
            #expect(try await harness.pipeline.store.index.failure(key: key) == nil, "a deliberate retry renders again")
        }
    }

    @Test func theHostHeaderMustNameThisServer() {
        let hosts = HostCheck(publicHosts: ["previews.example.org"])
        for accepted in [
            "localhost", "localhost:8080", "127.0.0.1:8080", "[::1]:8080", "::1", "10.1.2.3", "PREVIEWS.example.org:443",
            "app.localhost"
        ] {
            #expect(hosts.accepts(accepted), "\(accepted)")
        }
        for refused in [
            "rebind.attacker.example:8080", "rebind.attacker.example", "previews.example.org.attacker.example",
            "localhost.attacker.example", "127.0.0.1.nip.io"
        ] {
            #expect(!hosts.accepts(refused), "\(refused)")
        }
    }

    /// Stored previews are served while every render slot is taken; a render over its owner's
    /// share waits its turn; over the total it is refused.
    @Test func onlyRendersTakeRenderSlots() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?filename=a.pdf&owner=ana", method: .post, body: try sample("document-5-pages.pdf"))
            {
                try #require(try json($0)["document_id"] as? String)
            }
            try await harness.drainQueue()
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=300", method: .get) { #expect($0.status == .ok) }
            await harness.previewsKept()
            // Every render slot is held by one stranger's documents.
            let gate = harness.server.renders
            for index in 0..<gate.total { #expect(await gate.enter(.owner("stranger-\(index)"), document: "d\(index)") == .entered) }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=2&width=300", method: .get) {
                #expect($0.status == .ok, "a stored preview needs no slot")
            }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=3", method: .get) { response in
                #expect(response.status == .tooManyRequests, "a render needs one")
                #expect(response.headers[.retryAfter] == "1")
            }
            for index in 0..<gate.total { gate.leave(.owner("stranger-\(index)"), document: "d\(index)") }
            try await client.execute(uri: "/v1/documents/\(id)/preview?page=3", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func anOwnersRendersWaitTheirTurn() async throws {
        let impatient = RenderGate(total: 4, perRequester: 1, perDocument: 1, wait: .milliseconds(300))
        #expect(await impatient.enter(.owner("a"), document: "1") == .entered)
        #expect(await impatient.enter(.owner("b"), document: "2") == .entered, "another owner is not held up")
        #expect(await impatient.enter(.owner("a"), document: "3") == .waitedTooLong, "the owner's share stays taken")
        // A wait no load outlasts: whenever the first render ends, the next one goes.
        let gate = RenderGate(total: 4, perRequester: 1, perDocument: 1, wait: .seconds(3600))
        #expect(await gate.enter(.owner("a"), document: "1") == .entered)
        async let waiting = gate.enter(.owner("a"), document: "3")
        gate.leave(.owner("a"), document: "1")
        #expect(await waiting == .entered, "the owner's next render goes once the first ends")
    }

    /// A share's visitors render in lanes of their own (per share, per address): however many
    /// regions they ask for, the owner's previews do not wait behind them. Waiters go in order.
    @Test func visitorsRenderApartFromTheOwnerAndInOrder() async throws {
        let gate = RenderGate(total: 4, perRequester: 1, perDocument: 1, wait: .milliseconds(300))
        #expect(await gate.enter(.visitor(share: "s", address: "10.0.0.1"), document: "1") == .entered)
        #expect(await gate.enter(.owner("ana"), document: "2") == .entered, "the owner's lane is not the visitor's")
        #expect(await gate.enter(.visitor(share: "s", address: "10.0.0.2"), document: "3") == .waitedTooLong, "one lane per share")
        #expect(await gate.enter(.visitor(share: "t", address: "10.0.0.1"), document: "4") == .waitedTooLong, "and one per address")
        #expect(await gate.enter(.visitor(share: "t", address: "10.0.0.3"), document: "5") == .entered)

        let ordered = RenderGate(total: 4, perRequester: 1, perDocument: 1, wait: .seconds(3600))
        #expect(await ordered.enter(.owner("ana"), document: "1") == .entered)
        let first = Task { await ordered.enter(.owner("ana"), document: "2") }
        try await onOwnThread { try waitUntil("the first to wait") { ordered.waiting == 1 } }
        let second = Task { await ordered.enter(.owner("ana"), document: "3") }
        try await onOwnThread { try waitUntil("the second to wait") { ordered.waiting == 2 } }
        ordered.leave(.owner("ana"), document: "1")
        #expect(await first.value == .entered && ordered.waiting == 1, "the first to come goes first")
        ordered.leave(.owner("ana"), document: "2")
        #expect(await second.value == .entered)
    }

    @Test func slowUploadsHoldOnlyTheirOwnSlots() {
        let slots = UploadSlots(total: 3, perClient: 2, minimumBytesPerSecond: 1024, grace: .seconds(2))
        let start = ContinuousClock.now
        let slow = [slots.enter(client: "a", channel: nil, now: start), slots.enter(client: "a", channel: nil, now: start)]
        #expect(slow.allSatisfy { $0 != nil })
        #expect(slots.enter(client: "a", channel: nil, now: start + .seconds(1)) == nil, "the client's share, not yet judged slow")
        let honest = slots.enter(client: "b", channel: nil, now: start + .seconds(1))
        #expect(honest != nil)
        #expect(slots.received(1_000_000, for: honest!))
        // Ten seconds on, the two from `a` have sent nothing: a new upload takes the slowest's slot.
        let later = start + .seconds(10)
        let newcomer = slots.enter(client: "c", channel: nil, now: later)
        #expect(newcomer != nil, "a slow upload gives up its slot")
        #expect(slow.filter { !slots.received(1, for: $0!) }.count == 1, "exactly one slow upload lost its slot")
        #expect(slots.received(1, for: honest!), "the fast one keeps its own")
        #expect(slots.enter(client: "a", channel: nil, now: later) != nil, "the client's own slow upload makes room for its next")
    }

    /// Issue 65, item 12: sixteen appends trickling just above the floor (1.5 KiB/s) from four
    /// addresses hold no slot that others wait for once every slot is taken; a fast one keeps its own.
    @Test func tricklesJustAboveTheFloorGiveWayWhenEverySlotIsTaken() {
        let slots = UploadSlots(total: 16, perClient: 4, minimumBytesPerSecond: 1024, grace: .seconds(2))
        let start = ContinuousClock.now
        let trickles = (0..<15).map { slots.enter(client: "10.0.0.\($0 % 4)", channel: nil, now: start)! }
        let fast = slots.enter(client: "fast", channel: nil, now: start)!
        let later = start + .seconds(19)
        for ticket in trickles { #expect(slots.received(1536 * 20, for: ticket)) }
        #expect(slots.received(20 << 20, for: fast))
        let others = (0..<8).compactMap { slots.enter(client: "other-\($0)", channel: nil, now: later) }
        #expect(others.count == 8, "every newcomer takes a trickle's slot")
        #expect(trickles.filter { slots.received(1, for: $0) }.count == 7, "eight trickles gave way")
        #expect(slots.received(1, for: fast), "the fast upload keeps its slot")
    }
}
