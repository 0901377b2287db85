import Crypto
import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewS3
import PreviewTestSupport
import Synchronization
import Testing

/// The reference lock of hosts that share blobs in an object store: PostgreSQL's advisory lock.
@Suite(.blocking, .enabled(if: TestBackend.available.contains(.postgres)))
struct PostgresReferenceLockTests {
    @Test func writersShareItAndGCWaitsForThemAll() async throws {
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let hosts = [
            try await PostgresReferenceLock(url: database, logger: Logger(label: "a")),
            try await PostgresReferenceLock(url: database, logger: Logger(label: "b"))
        ]
        let events = Locked<[String]>([])
        let writers = (0..<2).map { index in
            Task {
                try? await hosts[index].whileHeld(exclusive: false) {
                    events.withLock { $0.append("writer \(index) in") }
                    try? await Task.sleep(for: .milliseconds(300))  // held while gc asks for the lock, so that gc has to wait (what is tested)
                    events.withLock { $0.append("writer \(index) out") }
                }
            }
        }
        // Both inside at once: the lock is shared.
        try await waitUntilAsync("both writers in") { events.withLock { $0.count { $0.hasSuffix(" in") } } == 2 }
        try await hosts[1].whileHeld(exclusive: true) { events.withLock { $0.append("gc in") } }
        for writer in writers { await writer.value }
        let order = events.withLock { $0 }
        #expect(order.prefix(2).allSatisfy { $0.hasSuffix(" in") })
        #expect(order.last == "gc in", "gc waited for both writers: \(order)")
        let late = Locked(false)
        try await hosts[0].whileHeld(exclusive: true) {
            Task { try? await hosts[1].whileHeld(exclusive: false) { late.withLock { $0 = true } } }
            try await Task.sleep(for: .milliseconds(300))
            let entered = late.withLock { $0 }
            #expect(!entered, "a writer waits while gc holds it")
        }
        try await waitUntilAsync("the writer to go on once gc is done") { late.withLock { $0 } }
    }
}
