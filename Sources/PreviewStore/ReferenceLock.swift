import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lock that keeps `gc` from removing a blob a writer has just decided to reuse: shared by
/// writers between taking a blob and committing the row that names it, exclusive for `gc` between
/// reading which blobs are referenced and removing the others (see ``BlobStorage/whileReferencing(exclusive:_:)``).
/// It must reach every process that writes to the same blobs.
public protocol ReferenceLock: Sendable {
    func whileHeld<T>(exclusive: Bool, _ body: () throws -> T) throws -> T
}

/// `flock` on a file: across the processes of one host, and across hosts where a shared
/// filesystem honours it (NFSv4, CephFS).
public struct FileReferenceLock: ReferenceLock {
    public let file: URL

    public init(file: URL) { self.file = file }

    public func whileHeld<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }  // closing releases the lock
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return try body()
    }
}
