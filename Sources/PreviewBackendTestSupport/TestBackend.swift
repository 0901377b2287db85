import Foundation
import Logging
import PostgresNIO
import PreviewComposition
import PreviewCore
import PreviewPostgres
import PreviewS3
import PreviewTestSupport

/// The backends that the shared behaviour tests run on: the embedded SQLite index, and PostgreSQL
/// on the throwaway server `$DOCPREVIEW_TEST_DATABASE` names (`scripts/test` starts one through
/// `scripts/with-test-postgres`); without one its tests fail saying so, unless
/// `DOCPREVIEW_TEST_SKIP=postgres` leaves them out. Each test gets a new, empty database on it.
package enum TestBackend: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    /// The server the PostgreSQL tests create their databases on.
    package static let serverURL = ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }

    package static var available: [TestBackend] { TestSkips.skips("postgres") ? [.sqlite] : [.sqlite, .postgres] }

    package var description: String { rawValue }

    /// A new, empty store in `root` with this backend's index and queue, its blobs where `blobs` says.
    package func open(root: URL, blobs: TestBlobs = .folder) async throws -> StoreBackend {
        try await StoreBackend(
            root: root, database: try await freshDatabase(), blobs: try blobs.fresh(), offload: .forTests, logger: Logger(label: "test"))
    }

    /// The address of a new database (nil: the embedded index).
    package func freshDatabase() async throws -> String? {
        guard self == .postgres else { return nil }
        guard let server = Self.serverURL, var address = URLComponents(string: server) else {
            throw MissingTestNeed("postgres", "DOCPREVIEW_TEST_DATABASE names no PostgreSQL server")
        }
        let name = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        // One at a time: concurrent CREATE DATABASE can fail while template1 is being copied.
        _ = try await Self.creating.inside {
            try await PostgresConnections(url: server, size: 1, logger: Logger(label: "test")).query("CREATE DATABASE \(unescaped: name)")
        }
        address.path = "/\(name)"
        return address.string!
    }

    private static let creating = AsyncGate(width: 1)
}

/// The blob drivers that the blob-store tests run on: the folder, and S3 in the throwaway server's
/// bucket `$DOCPREVIEW_TEST_S3` names (`scripts/test` starts SeaweedFS through `scripts/with-test-s3`,
/// which also gives the credentials), and a second S3 implementation, moto's server, in the bucket
/// `$DOCPREVIEW_TEST_S3_MOTO` names (`scripts/with-test-moto`); without one its tests fail saying
/// so, unless `DOCPREVIEW_TEST_SKIP=s3` (or `moto`) leaves them out. Each test gets a prefix of its own.
package enum TestBlobs: String, Sendable, CustomStringConvertible {
    case folder, s3, moto

    /// The bucket the S3 tests use, `s3://bucket/?endpoint=…`.
    package static let bucketURL = ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_S3"].flatMap { $0.isEmpty ? nil : $0 }
    /// The bucket on the second implementation.
    static let motoBucketURL = ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_S3_MOTO"].flatMap { $0.isEmpty ? nil : $0 }

    package static var available: [TestBlobs] {
        [.folder] + (TestSkips.skips("s3") ? [] : [.s3]) + (TestSkips.skips("moto") ? [] : [.moto])
    }

    package var description: String { rawValue }

    /// Where a new, empty store's blobs go: the folder, or a new prefix in the test bucket.
    package func fresh(cacheBytes: Int = 1 << 30) throws -> StoreBackend.Blobs {
        let prefix = "test-\(UUID().uuidString.lowercased())"
        switch self {
        case .folder: return .folder
        case .s3: return .s3(try S3Location(Self.address(prefix: prefix)), cacheBytes: cacheBytes)
        case .moto:
            guard let motoBucketURL = Self.motoBucketURL else {
                throw MissingTestNeed("moto", "DOCPREVIEW_TEST_S3_MOTO names no bucket on moto's S3 server")
            }
            return .s3(try S3Location(Self.address(prefix: prefix, in: motoBucketURL)), cacheBytes: cacheBytes)
        }
    }

    /// The test bucket's address with `prefix`.
    package static func address(prefix: String) throws -> String {
        guard let bucketURL else { throw MissingTestNeed("s3", "DOCPREVIEW_TEST_S3 names no S3 bucket") }
        return try address(prefix: prefix, in: bucketURL)
    }

    private static func address(prefix: String, in bucket: String) throws -> String {
        guard var address = URLComponents(string: bucket) else { throw MissingTestNeed("s3", "\(bucket) is no s3:// address") }
        address.path = "/\(prefix)/"
        return address.string!
    }
}
