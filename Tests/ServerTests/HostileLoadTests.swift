import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
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

@Suite struct SessionTests {
    private let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    private func signIn(_ client: any TestClientProtocol, token: String = "correct-horse") async throws -> (
        status: HTTPResponse.Status, cookie: String?, headers: HTTPFields
    ) {
        try await client.execute(uri: "/ui/signin", method: .post, headers: form, body: ByteBuffer(string: "token=\(token)&return=%2F")) { response in
            (response.status, response.headers[.setCookie].map { String($0.split(separator: ";")[0]) }, response.headers)
        }
    }

    @Test func everySignInIsANewSessionThatSignOutEnds() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            let first = try #require(try await signIn(client).cookie)
            let second = try #require(try await signIn(client).cookie)
            #expect(first != second, "a random session per sign-in")
            for cookie in [first, second] {
                try await client.execute(uri: "/v1/stats", method: .get, headers: [.cookie: cookie]) { #expect($0.status == .ok) }
            }
            let csrf = try await client.execute(uri: "/?owner=ana", method: .get, headers: [.cookie: first]) { response in
                String(try #require(String(buffer: response.body).firstMatch(of: /name="csrf" value="([A-Za-z0-9_-]+)"/)?.output.1))
            }
            try await client.execute(
                uri: "/ui/signout", method: .post, headers: [.cookie: first, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(csrf)")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.cookie: first]) { #expect($0.status == .unauthorized, "signed out") }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.cookie: second]) {
                #expect($0.status == .ok, "the other session lives")
            }
        }
    }

    @Test func sessionsEndWhenIdleOrOld() {
        let clock = ManualClock()
        let sessions = SessionStore(clock: clock)
        let idle = sessions.create()
        let busy = sessions.create()
        clock.advance(by: .seconds(3600))
        #expect(sessions.session(cookie: idle) != nil)
        clock.advance(by: SessionStore.idleLifetime + .seconds(1))
        #expect(sessions.session(cookie: idle) == nil, "idle past its lifetime")
        #expect(sessions.session(cookie: busy) == nil, "unused for as long")
        let used = sessions.create()
        var elapsed = Duration.zero
        while elapsed < SessionStore.absoluteLifetime {
            #expect(sessions.session(cookie: used) != nil)
            clock.advance(by: .seconds(6 * 3600))
            elapsed += .seconds(6 * 3600)
        }
        clock.advance(by: .seconds(1))
        #expect(sessions.session(cookie: used) == nil, "a week at most, however busy")
        #expect(sessions.session(cookie: "made-up") == nil)
    }

    @Test func wrongTokensAreThrottledPerAddress() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            for _ in 0..<SignInThrottle.perAddress { #expect(try await signIn(client, token: "guess").status == .unauthorized) }
            let sixth = try await signIn(client, token: "guess")
            #expect(sixth.status == .tooManyRequests)
            #expect(Int(sixth.headers[.retryAfter] ?? "") ?? 0 > 0)
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer wrong-guess"]) {
                #expect($0.status == .tooManyRequests, "bearer guesses share the address's lockout")
            }
            harness.clock.advance(by: .seconds(61))
            #expect(try await signIn(client, token: "guess").status == .unauthorized, "guessing again once the lockout has ended")
        }
        let clock = ManualClock()
        let throttle = SignInThrottle(clock: clock)
        for _ in 0..<SignInThrottle.perAddress { throttle.recordFailure(from: "a") }
        let firstLockout = try #require(throttle.refusal(for: "a"))
        #expect(throttle.refusal(for: "b") == nil, "another address is not locked")
        clock.advance(by: firstLockout - .seconds(1))
        #expect(throttle.refusal(for: "a") != nil, "locked until the lockout ends")
        clock.advance(by: .seconds(2))
        #expect(throttle.refusal(for: "a") == nil)
        for _ in 0..<SignInThrottle.perAddress { throttle.recordFailure(from: "a") }
        #expect(try #require(throttle.refusal(for: "a")) > firstLockout, "the lockout grows")
        let many = SignInThrottle(clock: clock)
        for index in 0..<SignInThrottle.overall { many.recordFailure(from: "addr-\(index)") }
        #expect(many.refusal(for: "anyone") != nil, "guessing from many addresses slows everyone's sign-in")
        clock.advance(by: throttle.window + .seconds(1))
        #expect(many.refusal(for: "anyone") == nil, "for one window")
    }

    /// Issue 65, item 15: with a weak token (`--insecure-weak-token`), a throttled address's tokens
    /// are not checked at all while it waits, the right one included, so a guesser who ignores the
    /// `429`s learns nothing; an address the operator trusts is always checked.
    @Test(arguments: [false, true]) func aWeakTokenIsNotCheckedForAThrottledGuesser(trusted: Bool) async throws {
        let harness = try await Harness(token: "pin-1234") { settings in
            settings.guessableToken = true
            if trusted { settings.trustedAddresses = ["local"] }
        }
        defer { harness.folder.remove() }
        try await harness.test { client in
            for guess in 0..<SignInThrottle.perAddress {
                try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer pin-000\(guess)"]) {
                    #expect($0.status == .unauthorized)
                }
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer pin-1234"]) { response in
                #expect(response.status == (trusted ? .ok : .tooManyRequests), "the right guess, while throttled")
            }
            #expect(try await signIn(client, token: "pin-1234").status == (trusted ? .seeOther : .tooManyRequests))
            harness.clock.advance(by: .seconds(61))
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer pin-1234"]) { #expect($0.status == .ok) }
        }
    }

    /// However many wrong tokens come, from one address or from many, the service's token and a
    /// device's token are never refused: a stranger cannot lock the service out.
    @Test func wrongTokensNeverLockOutTheRightOnes() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        let (_, deviceToken) = try await harness.server.documents.addDevice(name: "Ana's iPhone", owner: "ana")
        try await harness.test { client in
            for _ in 0..<SignInThrottle.overall {
                try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer wrong"]) {
                    #expect([.unauthorized, .tooManyRequests].contains($0.status))
                }
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer wrong"]) {
                #expect($0.status == .tooManyRequests)
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "Bearer correct-horse"]) { #expect($0.status == .ok) }
            try await client.execute(
                uri: "/api/v1/downloads?client_id=\(UUID().uuidString)", method: .get,
                headers: [.authorization: "Bearer \(deviceToken)"]
            ) { #expect($0.status == .ok) }
            #expect(try await signIn(client).cookie != nil, "the form signs the right token in")
        }
        let clock = ManualClock()
        let many = SignInThrottle(clock: clock)
        for index in 0..<SignInThrottle.overall { many.recordFailure(from: "addr-\(index % 20)") }
        #expect(many.refusal(for: "anyone") != nil, "the overall counter still slows anonymous guessing from many addresses")
    }

    @Test func htmlRefusesFraming() async throws {
        let harness = try await Harness(token: "correct-horse")
        defer { harness.folder.remove() }
        try await harness.test { client in
            // The sign-in form, a page and a page's failure (the pages themselves need the token).
            for (uri, headers) in [
                ("/ui/signin", HTTPFields()), ("/", [.authorization: "Bearer correct-horse"]),
                ("/ui/documents/x", [.authorization: "Bearer correct-horse"])
            ] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(uri)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(uri)")
                }
            }
            let wrong = try await signIn(client, token: "guess")
            #expect(wrong.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
        }
    }
}
