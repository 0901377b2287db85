import Foundation
import PreviewCore
#if canImport(Glibc)
    import Glibc
#endif

/// The lock that keeps `gc` from removing a blob a writer has just decided to reuse: shared by
/// writers between taking a blob and committing the row that names it, exclusive for `gc` between
/// reading which blobs are referenced and removing the others (see ``BlobStorage/whileReferencing(exclusive:_:)``).
/// It must reach every process that writes to the same blobs.
package protocol ReferenceLock: Sendable {
    func whileHeld<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T
}

/// `flock` on a file: across the processes of one host, and across hosts where a shared
/// filesystem honours it (NFSv4, CephFS). Waiting for it (while `gc` holds it exclusive) takes a
/// thread of `offload`'s writes lane, never one of Swift's cooperative pool.
package struct FileReferenceLock: ReferenceLock {
    package let file: URL
    private let offload: Offload

    package init(file: URL, offload: Offload) {
        self.file = file
        self.offload = offload
    }

    package func whileHeld<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T {
        let path = file.path
        // Taken in a task of its own, which a caller's cancellation does not reach: a lock granted
        // after its waiter gave up would otherwise stay held, its descriptor lost.
        let descriptor = try await Task { [offload] in
            try await offload.run(.writes) { () throws -> Int32 in
                let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                    guard errno == EINTR else {
                        let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                        close(descriptor)
                        throw failure
                    }
                }
                return descriptor
            }
        }.value
        defer { close(descriptor) }  // closing releases the lock
        return try await body()
    }
}
