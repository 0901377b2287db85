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
import PreviewTestSupport
import Testing

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
