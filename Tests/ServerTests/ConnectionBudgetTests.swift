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
        #expect(budget.admit("192.0.2.1") == nil && budget.admit("192.0.2.1") == .client)
        try await harness.test { client in
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains("docpreview_connections_shed_total{reason=\"client\"}") && metrics.contains("docpreview_connections_open"))
        }
        budget.release("192.0.2.1")
        #expect(budget.held == 0)
    }

    /// A TLS connection that never sends its ClientHello is closed once the handshake's time is up,
    /// and its place in the budget given back.
    @Test func aSilentTLSConnectionIsClosed() async throws {
        let certificate = try SelfSignedCertificate(names: ["localhost", "127.0.0.1"])
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (cert, key) = (folder.url.appendingPathComponent("cert.pem"), folder.url.appendingPathComponent("key.pem"))
        try certificate.certificatePEM.write(to: cert, atomically: true, encoding: .utf8)
        try certificate.privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)
        let tls = try ServerTLS.configuration(certificate: cert.path, key: key.path)
        let harness = try await Harness {
            $0.tls = tls
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
