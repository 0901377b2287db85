import Crypto
import Foundation
import PreviewDomain
#if canImport(Glibc)
    import Glibc
#endif

/// Which file a path named when it was looked at: device and inode.
public struct FileIdentity: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of the regular file at `path`, not following a final symlink; nil otherwise.
    package init?(regularFileAt path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }
}

/// An input file opened once, for every read that follows: detection, the copy into the store.
/// What is checked and what is stored come from this one descriptor, so the path cannot be
/// swapped (for a symlink, a FIFO, a bigger file) between the look and the read.
///
/// Owns the descriptor and closes it in `deinit`. Sendable: the descriptor never changes and
/// every read is a positioned `pread`, which shares no file offset between threads.
package final class SourceFile: Sendable {
    package enum OpenFailure: Error, Sendable {
        /// Nothing there, or no permission.
        case unreadable(Int32)
        /// A symlink where a file was expected (with `followLinks` false).
        case link
        /// A FIFO, socket, device or folder.
        case notRegular
        /// Another file than the one expected sits at the path now.
        case replaced
    }

    private let descriptor: Int32
    /// The size when opened.
    package let size: Int
    package let identity: FileIdentity

    /// Opens `url` for reading without blocking (a FIFO cannot hold the open up) and checks it is a
    /// regular file, and `expected` when given.
    /// - Parameter followLinks: false refuses a symlink as the last component (`O_NOFOLLOW`).
    package init(_ url: URL, followLinks: Bool, expected: FileIdentity? = nil) throws(OpenFailure) {
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW)
        let descriptor = open(url.path, flags)
        guard descriptor >= 0 else { throw errno == ELOOP && !followLinks ? .link : .unreadable(errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .notRegular
        }
        if let expected, expected != FileIdentity(info) {
            close(descriptor)
            throw .replaced
        }
        self.descriptor = descriptor
        size = Int(info.st_size)
        identity = FileIdentity(info)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset`; fewer at the end of the file.
    package func read(at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, $0.count - filled, off_t(offset + filled)) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// The SHA-256 of the file's bytes (one read, nothing written).
    package func contentHash() throws -> BlobHash {
        var hasher = SHA256()
        try chunks { chunk in hasher.update(bufferPointer: chunk) }
        return BlobHash(hasher.finalize())
    }

    /// Calls `body` with the file's bytes from the start, 1 MiB at a time, until the end or until
    /// more than `limit` bytes were read (then throws ``TooLarge``): the file may have grown since it was opened.
    package func chunks(limit: Int = .max, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileChunks.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let count = pread(descriptor, buffer.baseAddress, FileChunks.chunkSize, off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return }
            offset += count
            if offset > limit { throw TooLarge() }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// More bytes than the limit: the file is larger than it was when it was checked.
    package struct TooLarge: Error {}
}
