import Foundation
import HummingbirdTesting
import NIOCore
import PreviewCore
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// What a connection may hold: a place in the connection budget (overall and per client address),
/// a TLS handshake that ends in time, and a few streamed files however many streams it opens.
@Suite struct ConnectionBudgetTests {
    /// Past its address's share a connection is answered 503 and closed before any request is
    /// read; once one of the others has gone, a new one is served.
    @Test func aClientsConnectionsPastItsShareAreShed() async throws {
        let harness = try await Harness { $0.maxConnectionsPerClient = 3 }
        defer { harness.folder.remove() }
        let budget = harness.server.connections
        try await harness.live { client in
            let port = try #require(client.port)
            let (shedStatus, shedClosed, nextStatus) = try await onOwnThread {
                let held = try (0..<3).map { _ in try RawConnection(port: port) }
                defer { for connection in held { connection.close() } }
                try waitUntil("the server to hold 3 connections") { budget.held == 3 }
                let shed = try RawConnection(port: port)
                defer { shed.close() }
                let answered = (shed.readStatus(seconds: 120), shed.waitForClose(seconds: 120))
                held[0].close()
                try waitUntil("the server to give a place back") { budget.held == 2 }
                let next = try RawConnection(port: port)
                defer { next.close() }
                next.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                // Answered by a request task: on a loaded machine the cooperative threads may be busy a while.
                return (answered.0, answered.1, next.readStatus(seconds: 120))
            }
            #expect(shedStatus == 503, "answered before any request")
            #expect(shedClosed)
            #expect(nextStatus == 200)
        }
    }

    /// What the budget holds and sheds is in `/metrics`.
    @Test func heldAndShedConnectionsAreCounted() async throws {
        let harness = try await Harness { $0.maxConnectionsPerClient = 1 }
        defer { harness.folder.remove() }
        let budget = harness.server.connections
        let place = try budget.admit("192.0.2.1").get()
        #expect(budget.admit("192.0.2.1") == .failure(.client))
        try await harness.test { client in
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains("docpreview_connections_shed_total{reason=\"client\"}") && metrics.contains("docpreview_connections_open"))
        }
        budget.release(place)
        #expect(budget.held == 0)
    }

    /// Issue 65, item 8: when every place is taken, a new address takes the oldest place of the
    /// address holding the most (that connection is closed), so many addresses filling the budget
    /// cannot keep a fresh client out; an address with no more than its share keeps what it has.
    @Test func placesAreSharedFairlyAcrossAddresses() throws {
        let budget = ConnectionBudget(total: 6, perClient: 4)
        let closed = Locked<[String]>([])
        func admit(_ address: String, _ name: String) -> ConnectionBudget.Place? {
            try? budget.admit(address) { closed.withLock { $0.append(name) } }.get()
        }
        let heavy = (0..<4).compactMap { admit("198.51.100.1", "heavy-\($0)") }
        let light = (0..<2).compactMap { admit("198.51.100.2", "light-\($0)") }
        #expect(heavy.count == 4 && light.count == 2 && budget.held == 6)
        #expect(admit("203.0.113.9", "fresh") != nil, "a fresh address gets in")
        #expect(closed.withLock { $0 } == ["heavy-0"], "the heaviest address's oldest connection gave its place")
        #expect(budget.held == 6)
        budget.release(heavy[0])
        #expect(budget.held == 6, "a place given up once is not given back twice")
        #expect(admit("198.51.100.2", "light-2") == nil, "two against three: taking a place would make it no fairer")
        #expect(admit("203.0.113.10", "fresh-2") != nil, "none against three: the heavy address gives way again")
        #expect(closed.withLock { $0 } == ["heavy-0", "heavy-1"])
    }

    /// A server speaking TLS with a certificate of its own, its settings adjusted by `adjust`.
    static func tlsHarness(_ adjust: @escaping (inout ServerSettings) -> Void) async throws -> Harness {
        let certificate = try SelfSignedCertificate(names: ["localhost", "127.0.0.1"])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (cert, key) = (folder.url.appendingPathComponent("cert.pem"), folder.url.appendingPathComponent("key.pem"))
        try certificate.certificatePEM.write(to: cert, atomically: true, encoding: .utf8)
        try certificate.privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)
        let tls = try ServerTLS.configuration(certificate: cert.path, key: key.path)
        return try await Harness {
            $0.tls = tls
            adjust(&$0)
        }
    }

    /// Issue 65, item 8: an HTTP/2 connection that sends its preface and then nothing is closed
    /// (HTTP/2's own idle close waits for a ping's answer that never comes), and its place given back.
    @Test func aSilentHTTP2ConnectionIsClosed() async throws {
        let harness = try await Self.tlsHarness { $0.idleTimeout = .seconds(1) }
        defer { harness.folder.remove() }
        let budget = harness.server.connections
        try await harness.live { client in
            let port = try #require(client.port)
            // A client that speaks h2 by ALPN, sends the preface and an empty SETTINGS, answers nothing, and waits.
            let script = """
                import socket, ssl, sys, time
                context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
                context.set_alpn_protocols(["h2"])
                connection = context.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
                print(connection.selected_alpn_protocol(), flush=True)
                connection.sendall(b"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
                connection.settimeout(120)
                try:
                    while connection.recv(65536):
                        pass
                    print("closed")
                except (TimeoutError, socket.timeout):
                    print("still open")
                except OSError:
                    print("closed")
                """
            let result = try await onOwnThread {
                try DocPreviewProcess.run(["-c", script, "\(port)"], timeout: 150, executable: URL(fileURLWithPath: "/usr/bin/python3"))
            }
            #expect(result.stdout == "h2\nclosed\n", "\(result.stdout) \(result.stderr)")
            try await onOwnThread { try waitUntil("the server to give its place back") { budget.held == 0 } }
        }
    }

    /// A TLS connection that never sends its ClientHello is closed once the handshake's time is up,
    /// and its place in the budget given back.
    @Test func aSilentTLSConnectionIsClosed() async throws {
        let harness = try await Self.tlsHarness {
            $0.handshakeTimeout = .seconds(1)
            $0.idleTimeout = .seconds(3600)
        }
        defer { harness.folder.remove() }
        let budget = harness.server.connections
        try await harness.live { client in
            let port = try #require(client.port)
            let closed = try await onOwnThread {
                let silent = try RawConnection(port: port)
                defer { silent.close() }
                try waitUntil("the server to hold the connection") { budget.held >= 1 }
                return silent.waitForClose(seconds: 30)
            }
            #expect(closed, "closed by the handshake's deadline, not by the test's patience")
            try await onOwnThread { try waitUntil("the server to give its place back") { budget.held == 0 } }
        }
    }

    /// However many streams one connection opens, at most its share of files are sent at once;
    /// the rest wait their turn, in order, and every one is served.
    @Test func streamsWaitTheirTurnPerConnection() async throws {
        final class Connection {}
        let (first, second) = (Connection(), Connection())
        let slots = StreamSlots(total: 3, perConnection: 2)
        let running = Locked<(byConnection: [ObjectIdentifier: Int], total: Int, most: [ObjectIdentifier: Int], mostTotal: Int)>(([:], 0, [:], 0))
        let served = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                let connection = ObjectIdentifier(index % 4 == 0 ? second : first)
                group.addTask {
                    try await slots.withSlot(on: connection) {
                        running.withLock { state in
                            state.byConnection[connection, default: 0] += 1
                            state.total += 1
                            state.most[connection] = max(state.most[connection, default: 0], state.byConnection[connection, default: 0])
                            state.mostTotal = max(state.mostTotal, state.total)
                        }
                        for _ in 0..<5 { await Task.yield() }
                        running.withLock { state in
                            state.byConnection[connection, default: 0] -= 1
                            state.total -= 1
                        }
                        return 1
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(served == 40)
        let seen = running.withLock { $0 }
        #expect(seen.most.values.allSatisfy { $0 <= 2 } && seen.mostTotal <= 3, "\(seen)")
    }
}
