import Foundation
import PreviewCore
import PreviewDomain

/// Local files known to hold their blob's bytes: each hashed once, then trusted only while nothing
/// about it has changed — its device, inode, size, modification and change times. Any write,
/// truncation, replacement or `chmod` moves the change time, which nobody can set back; so a copy
/// damaged after it was checked is hashed again (and found out) before it is used. Bounded: past
/// ``capacity`` files the record starts over, and each is hashed again when next used.
package final class VerifiedFiles: Sendable {
    /// The process's record: the blob store's files and the object store's local copies.
    package static let shared = VerifiedFiles()
    package static let capacity = 100_000

    private struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: timespec, changed: timespec

        init?(_ url: URL) {
            var info = stat()
            guard stat(url.path, &info) == 0 else { return nil }
            (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
            (modified, changed) = (info.st_mtim, info.st_ctim)
        }

        static func == (a: Stamp, b: Stamp) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
                && a.modified.tv_nsec == b.modified.tv_nsec && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    private let checked = Locked<[String: (hash: BlobHash, stamp: Stamp)]>([:])

    package init() {}

    /// Whether the file at `url` holds the bytes of `hash`: known when it was checked and has not
    /// changed since, else hashed now (blocking: call it off the cooperative pool). A missing file does not.
    package func holds(_ url: URL, _ hash: BlobHash) throws -> Bool {
        guard let before = Stamp(url) else { return false }
        if isKnown(url, hash, stamp: before) { return true }
        let hashed = try SourceFile(url, followLinks: false).contentHash()
        // Changed while it was read: not known to be either.
        guard hashed == hash, Stamp(url) == before else {
            forget(url)
            return false
        }
        record(url, hash, before)
        return true
    }

    /// ``holds(_:_:)`` for a caller on Swift's cooperative pool: a file known to hold `hash` (one
    /// `stat`, no read) is answered at once; any other is hashed on `offload`'s reads lane.
    package func holds(_ url: URL, _ hash: BlobHash, hashingOn offload: Offload) async throws -> Bool {
        if let stamp = Stamp(url), isKnown(url, hash, stamp: stamp) { return true }
        return try await offload.run(.reads) { try self.holds(url, hash) }
    }

    private func isKnown(_ url: URL, _ hash: BlobHash, stamp: Stamp) -> Bool {
        checked.withLock({ $0[url.path] }).map({ $0.hash == hash && $0.stamp == stamp }) == true
    }

    /// Records that the file at `url` was just checked to hold `hash` (written from bytes that hashed to it).
    package func remember(_ url: URL, holds hash: BlobHash) {
        if let stamp = Stamp(url) { record(url, hash, stamp) }
    }

    private func record(_ url: URL, _ hash: BlobHash, _ stamp: Stamp) {
        checked.withLock { checked in
            if checked.count >= Self.capacity { checked.removeAll() }
            checked[url.path] = (hash, stamp)
        }
    }

    /// Forgets what is known of the file at `url` (it was removed or replaced).
    package func forget(_ url: URL) {
        _ = checked.withLock { $0.removeValue(forKey: url.path) }
    }
}
