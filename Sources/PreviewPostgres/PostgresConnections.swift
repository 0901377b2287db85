import Foundation
import Logging
import PostgresNIO
import PreviewCore
import PreviewStore
import Synchronization

/// A small pool of PostgreSQL connections, awaited: a call beyond the pool's size waits its turn
/// suspended, and a query's answer is awaited on NIO's event loop, so no thread is held while the
/// database works.
///
/// Closed connections (the server went away) are dropped, never used, and the next call opens a
/// new one, so a database restart costs the calls in flight only. Every query also has a deadline:
/// a connection that gives no answer in time is closed, with the idle ones opened before it.
///
/// Why not postgres-nio's own `PostgresClient` (1.33): it has no deadline for a statement, so a
/// server that stops answering without closing the socket (a partition, a hung host) holds a
/// worker's lease renewal and a request for as long as TCP waits, where this pool closes the
/// connection after `queryTimeout` and the caller answers 503; and it needs `run()` kept alive in a
/// task of its own for its lifetime, which the one-shot commands (`list`, `verify`, `gc` on
/// PostgreSQL) would have to start and stop around every use. The rest (connections awaited,
/// transactions, conflicts run again) would be the same over it; adopt it once it bounds a query.
public final class PostgresConnections: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let idle = Locked<[PostgresConnection]>([])
    private let capacity: AsyncGate
    private let nextID = Atomic<Int>(0)
    private let queryTimeout: TimeAmount

    /// Connects to `url` (`postgres://user:password@host:port/database`, `sslmode=require` or
    /// `prefer` for TLS, `host=/socket/folder` for a Unix socket) and keeps up to `size`
    /// connections. A query that takes longer than `queryTimeout` fails and closes its connection.
    /// Fails at once when the server cannot be reached.
    public init(url: String, size: Int = 4, queryTimeout: Duration = .seconds(30), logger: Logger) async throws {
        configuration = try Self.configuration(url: url)
        self.queryTimeout = TimeAmount(queryTimeout)
        self.logger = logger
        capacity = AsyncGate(width: size)
        try await withConnection { connection in _ = try await connection.query("SELECT 1") }
    }

    deinit {
        // The closure holds each connection until its close has finished.
        for connection in idle.withLock({ $0 }) { connection.close().whenComplete { _ in _ = connection } }
    }

    /// Runs one statement (its interpolations are sent as bind parameters) and returns its rows.
    /// A statement that PostgreSQL ends for a conflict was undone whole, so it is run again as
    /// a transaction is (``transaction(_:)``).
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await withConnection { session in try await retryingConflicts { try await session.query(query) } }
    }

    /// Runs `body` with a connection of its own (no transaction), each of its queries given
    /// `timeout` to answer (nil: the pool's `queryTimeout`).
    package func withConnection<T>(timeout: Duration? = nil, _ body: (Session) async throws -> T) async throws -> T {
        try await capacity.inside {
            // A closed connection must not be used: postgres-nio never answers a query sent on one.
            let reusable = idle.withLock { idle -> PostgresConnection? in
                while let candidate = idle.popLast() {
                    if !candidate.isClosed { return candidate }
                }
                return nil
            }
            let connection = if let reusable { reusable } else { try await connect() }
            defer { keep(connection) }
            return try await body(Session(connection: connection, timeout: timeout.map(TimeAmount.init) ?? queryTimeout, logger: logger))
        }
    }

    /// Puts `connection` back among the idle ones; closed, it goes, and the idle ones opened before it with it.
    private func keep(_ connection: PostgresConnection) {
        guard connection.isClosed else {
            idle.withLock { $0.append(connection) }
            return
        }
        let stale = idle.withLock { idle -> [PostgresConnection] in
            defer { idle.removeAll() }
            return idle
        }
        for suspect in stale { suspect.close().whenComplete { _ in _ = suspect } }
    }

    /// Runs `body` in a transaction on a connection of its own; one that PostgreSQL ends for a
    /// conflict with another (a deadlock among the counters' row locks, a serialization failure) is
    /// run again, up to ``conflictRetries`` times. So `body` must only talk to the database.
    package func transaction<T>(_ body: (Session) async throws -> T) async throws -> T {
        try await withConnection { session in try await retryingConflicts { try await session.transaction { try await body(session) } } }
    }

    /// Runs `work` (a statement or a transaction) again while PostgreSQL ends it for a conflict, up
    /// to ``conflictRetries`` times.
    private func retryingConflicts<T>(_ work: () async throws -> T) async throws -> T {
        var conflicts = 0
        while true {
            do {
                return try await work()
            } catch let error as PostgresDriverError where error.isConflict && conflicts < Self.conflictRetries {
                conflicts += 1
                logger.debug("a statement met a conflict and runs again", metadata: ["preview.error": "\(error)"])
            }
        }
    }

    /// How often a transaction ended by a conflict is run again before the conflict is the caller's
    /// (then a passing fault: ``StoreFault/unavailable``).
    static let conflictRetries = 4

    private func connect() async throws -> PostgresConnection {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        do {
            return try await PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration,
                id: id, logger: logger
            ).get()
        } catch let error as PSQLError {
            throw PostgresDriverError(error, fault: .unavailable)
        } catch {
            throw PostgresDriverError("The database cannot be reached: \(error)", fault: .unavailable)
        }
    }

    static func configuration(url text: String) throws -> PostgresConnection.Configuration {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let url = URLComponents(string: text) else {
            throw PostgresDriverError("Not a postgres:// address.")
        }
        let parameters = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let port = url.port ?? parameters["port"].flatMap(Int.init) ?? 5432
        let username = url.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        let password = url.password.flatMap { $0.removingPercentEncoding }
        let database = url.path.isEmpty ? nil : String(url.path.dropFirst()).removingPercentEncoding
        if let socketFolder = parameters["host"], socketFolder.hasPrefix("/") {
            let socket = "\(socketFolder)/.s.PGSQL.\(port)"
            return .init(unixSocketPath: socket, username: username, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch parameters["sslmode"] ?? "disable" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case "require", "verify-full": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case let mode: throw PostgresDriverError("Unsupported sslmode \(mode) (use disable, prefer, require or verify-full).")
        }
        return .init(
            host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost", port: port, username: username, password: password,
            database: database, tls: tls)
    }
}

/// One checked-out connection.
package struct Session: Sendable {
    let connection: PostgresConnection
    let timeout: TimeAmount
    let logger: Logger

    /// Runs `query` (its interpolations are sent as bind parameters) and returns all its rows.
    @discardableResult
    package func query(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        let loop = connection.eventLoop
        let answer = loop.makePromise(of: PostgresQueryResult.self)
        let connection = connection
        let deadline = loop.scheduleTask(in: timeout) {
            answer.fail(PostgresDriverError("The database gave no answer in time; the connection was closed.", fault: .unavailable))
            connection.close().whenComplete { _ in _ = connection }
        }
        // Whichever comes first completes `answer`, on the connection's event loop; the other is ignored.
        connection.query(query, logger: logger).hop(to: loop).whenComplete { result in
            deadline.cancel()
            answer.completeWith(result)
        }
        do {
            return try await answer.futureResult.get().map { $0.makeRandomAccess() }
        } catch let error as PSQLError {
            throw PostgresDriverError(error)
        }
    }

    /// Runs `body` in a transaction on this connection: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () async throws -> T) async throws -> T {
        try await query("BEGIN")
        do {
            let result = try await body()
            try await query("COMMIT")
            return result
        } catch {
            _ = try? await query("ROLLBACK")
            throw error
        }
    }

    /// Runs `plan`'s statements on this connection (in the caller's transaction), its rows read
    /// as records by `record`.
    package func run<Record, Result>(_ plan: SQLPlan<Record, Result>, _ record: (PostgresRandomAccessRow) throws -> Record) async throws -> Result {
        var next = plan
        while true {
            switch next {
            case let .done(result): return result
            case let .statement(sql, rest): next = try rest(try await query(PostgresQuery(sql)).map(record))
            case let .compute(step): next = try step()
            }
        }
    }

    /// Runs `statements` one after another.
    package func execute(_ statements: [PortableSQL]) async throws {
        for sql in statements { try await query(PostgresQuery(sql)) }
    }
}

/// A `--database` address that cannot be used, data this version cannot read, or the database
/// failing: unreachable, gone mid-query, or out of disk (its ``fault``).
package struct PostgresDriverError: StoreFaultReporting, CustomStringConvertible {
    package let description: String
    package let fault: StoreFault?
    /// The server ended the transaction for a conflict with another (deadlock, serialization
    /// failure): running it again may succeed.
    package let isConflict: Bool
    /// The server cancelled the statement (`query_canceled`: its `statement_timeout` ran out).
    package let isCancelled: Bool

    package init(_ description: String, fault: StoreFault? = nil) {
        self.description = description
        self.fault = fault
        isConflict = false
        isCancelled = false
    }

    /// PSQLError's description hides the server's message; the logs need it.
    init(_ error: PSQLError, fault: StoreFault? = nil) {
        description = String(reflecting: error)
        self.fault = fault ?? Self.fault(of: error)
        isConflict = error.code == .server && Self.conflicts.contains(error.serverInfo?[.sqlState] ?? "")
        isCancelled = error.code == .server && error.serverInfo?[.sqlState] == "57014"
    }

    /// `deadlock_detected` and `serialization_failure`.
    static let conflicts: Set<String> = ["40P01", "40001"]

    /// Connections lost, and the server's SQLSTATE classes for a full disk (53100), too many
    /// connections (53300), connection failures (08) and an operator's shutdown or restart (57P).
    private static func fault(of error: PSQLError) -> StoreFault? {
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed:
            return .unavailable
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == "53100" { return .storageFull }
            // A conflict left after the retries passes too: callers back off and try again.
            if state == "53300" || state.hasPrefix("08") || state.hasPrefix("57P") || conflicts.contains(state) { return .unavailable }
            return nil
        default:
            return nil
        }
    }
}
