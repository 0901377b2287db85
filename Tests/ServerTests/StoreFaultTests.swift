import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewPostgres
@testable import PreviewDocuments
import PreviewServer
import PreviewTestSupport
import Testing

/// A full disk and a database outage, for real: answers that say what happened (507/503 with the
/// error object and `Retry-After`), `/metrics` answering through them, recovery after.
@Suite struct StoreFaultTests {
    @Test func aFullDiskIs507WithABody() async throws {
        let disk = try SmallDisk.mount(megabytes: 16)
        let harness = try await Harness(
            opened: try TestBackend.sqlite.open(root: disk.url.appendingPathComponent("store")),
            folder: try TemporaryFolder())
        defer { harness.folder.remove() }
        let video = try sample("video-h264.mp4")
        try await harness.test { client in
            disk.fill()
            try await client.execute(uri: "/v1/documents?filename=film.mp4&owner=ana", method: .post, body: video) { response in
                #expect(response.status.code == 507)
                #expect(response.headers[.retryAfter] == "60")
                let error = try #require(try json(response)["error"] as? [String: Any])
                #expect(error["code"] as? String == "storage_full")
                #expect((error["message"] as? String)?.contains("full") == true)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("docpreview_store_faults_total{fault=\"storage_full\",place=\"requests\"}"), "counted")
            }
            disk.free()
            try await client.execute(uri: "/v1/documents?filename=film.mp4&owner=ana", method: .post, body: video) { response in
                #expect(response.status == .accepted, "the same upload goes through once there is room")
            }
        }
    }

    @Test func aDatabaseOutageIs503WithABodyAndMetricsStillAnswer() async throws {
        guard TestBackend.available.contains(.postgres) else { return }  // DOCPREVIEW_TEST_SKIP=postgres
        let address = try await #require(try TestBackend.postgres.freshDatabase())
        let folder = try TemporaryFolder()
        let opened = try await StoreBackend(root: folder.url, database: address, offload: .forTests, logger: Logger(label: "test"))
        let harness = try Harness(opened: opened, folder: folder)
        defer { harness.folder.remove() }
        let image = try sample("image.webp")
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents?filename=a.webp&owner=ana", method: .post, body: image) { response in
                #expect(response.status == .accepted)
            }
            // A scrape waits at most a second for the store's figures: on a busy machine the first
            // may answer before them.
            try await waitUntilAsync("the store's figures in /metrics") {
                try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }.contains("docpreview_store_up 1")
            }
            let outage = try await DatabaseOutage.begin(address)
            for (method, uri, body) in [
                (HTTPRequest.Method.get, "/v1/documents", nil), (.get, "/v1/stats", nil),
                (.post, "/v1/documents?filename=b.webp&owner=ana", image)
            ] as [(HTTPRequest.Method, String, ByteBuffer?)] {
                try await client.execute(uri: uri, method: method, body: body) { response in
                    #expect(response.status == .serviceUnavailable, "\(method) \(uri)")
                    #expect(response.headers[.retryAfter] == "10")
                    let error = try #require(try json(response)["error"] as? [String: Any])
                    #expect(error["code"] as? String == "unavailable")
                }
            }
            // /metrics tries to refresh its figures, sees the outage (once the refresh has), and answers.
            var text = ""
            try await waitUntilAsync("the outage in /metrics") {
                text = try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    return String(buffer: response.body)
                }
                return text.contains("docpreview_store_up 0")
            }
            #expect(text.contains("docpreview_documents 1"), "the last figures stay")
            #expect(text.contains("docpreview_store_faults_total{fault=\"unavailable\",place=\"requests\"}"))
            try await outage.end()
            try await client.execute(uri: "/v1/documents", method: .get) { response in
                #expect(response.status == .ok, "a new connection once the database is back")
            }
        }
    }

    @Test func workersBackOffExponentiallyUpToACap() {
        let backoff = Backoff(base: .milliseconds(250), cap: .seconds(30), clock: ManualClock())
        var pauses: [Duration] = []
        for _ in 0..<10 {
            backoff.fail()
            pauses.append(backoff.pending)
        }
        #expect(pauses.prefix(4) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)])
        #expect(pauses.last == .seconds(30), "capped")
        backoff.succeed()
        #expect(backoff.pending == .zero, "a success ends it")
    }

    /// The pause is the service clock's, not the machine's: it has ended once that clock has moved
    /// on by it (a test that waited on the machine's time would depend on the machine's speed).
    @Test func aPauseEndsWhenItsTimeHasPassed() async throws {
        let clock = ManualClock()
        let backoff = Backoff(base: .seconds(1), cap: .seconds(30), clock: clock)
        backoff.fail()
        clock.advance(by: .seconds(1))
        await backoff.pause()
        #expect(clock.sleeping == 0, "nothing slept: the pause had passed on the clock")
        backoff.fail()
        #expect(backoff.pending == .seconds(2), "the next fault doubles it")
    }

    /// While the object store refuses every write, leases still go through: they must not end the
    /// burst (nor its back-off, nor announce a recovery); a stored outcome does.
    @Test func onlyAWriteEndsABurstOfRefusedWrites() {
        let messages = Locked<[(level: Logger.Level, message: String)]>([])
        let logger = Logger(label: "test") { _ in CollectingLogHandler(into: messages) }
        let burst = FaultBurst(place: "worker")
        let backoff = Backoff(base: .milliseconds(250), cap: .seconds(30), clock: ManualClock())
        for _ in 0..<5 {
            #expect(burst.recordRefusal(PreviewError(.unavailable, "503 SlowDown"), write: true, pausing: backoff, logger: logger))
            #expect(!burst.clear(logger: logger, proof: .database, backoff: backoff), "a lease proves the database only")
        }
        #expect(backoff.pending == .seconds(4), "the pause grew with each refused write: 250 ms doubled four times")
        #expect(burst.clear(logger: logger, proof: .write, backoff: backoff))
        #expect(backoff.pending == .zero && burst.current == nil)
        #expect(messages.withLock { $0 }.map(\.level) == [.error, .notice], "the burst told once, its end once")
        // A burst of the database's refusals ends with the database.
        _ = burst.recordRefusal(PreviewError(.unavailable, "database down"), pausing: backoff, logger: logger)
        #expect(burst.clear(logger: logger, proof: .database, backoff: backoff) && backoff.pending == .zero)
    }

    @Test func aBurstOfFaultsIsLoggedOnceAndItsEndOnce() {
        let messages = Locked<[(level: Logger.Level, message: String)]>([])
        let logger = Logger(label: "test") { _ in CollectingLogHandler(into: messages) }
        let burst = FaultBurst(place: "test")
        for _ in 0..<100 { burst.record(.unavailable, cause: PreviewError(.unavailable, "down"), logger: logger) }
        #expect(burst.current == .unavailable)
        burst.clear(logger: logger)
        burst.clear(logger: logger)
        let logged = messages.withLock { $0 }
        #expect(logged.map(\.level) == [.error, .notice], "the first fault, then the end: \(logged.map(\.message))")
        #expect(burst.current == nil)
    }
}
