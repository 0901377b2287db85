import Foundation
import Logging
import PostgresNIO
import PreviewDocuments
import PreviewPostgres

/// The backends that the shared behaviour tests run on: the embedded SQLite index always, and
/// PostgreSQL when `$DOCPREVIEW_TEST_DATABASE` names a throwaway server (`scripts/test` starts one
/// through `scripts/with-test-postgres`). Each test gets a new, empty database on it.
public enum TestBackend: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    /// The server the PostgreSQL tests create their databases on.
    public static let serverURL = ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }

    public static var available: [TestBackend] { serverURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// A new, empty store in `root` with this backend's index and queue.
    public func open(root: URL) throws -> StoreBackend {
        try StoreBackend(root: root, database: try freshDatabase(), logger: Logger(label: "test"))
    }

    /// The address of a new database (nil: the embedded index).
    public func freshDatabase() throws -> String? {
        guard self == .postgres else { return nil }
        guard let server = Self.serverURL, var address = URLComponents(string: server) else {
            throw PostgresDriverError("DOCPREVIEW_TEST_DATABASE is not set")
        }
        let name = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        // One at a time: concurrent CREATE DATABASE can fail while template1 is being copied.
        _ = try Self.creating.withLock {
            try PostgresConnections(url: server, size: 1, logger: Logger(label: "test")).query("CREATE DATABASE \(unescaped: name)")
        }
        address.path = "/\(name)"
        return address.string!
    }

    private static let creating = NSLock()
}
