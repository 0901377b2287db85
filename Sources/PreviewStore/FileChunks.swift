import Crypto
import Foundation
import PreviewCore
import PreviewDomain

/// Reads a file front to back in 1 MiB chunks with plain `read(2)`. Foundation's
/// `FileHandle.read(upToCount:)` on Linux reads 4 KiB per system call whatever the count asked
/// for: 3,700 calls and ~30 ms for a 7 MB video, twice per ingest (hash, then copy).
enum FileChunks {
    static let chunkSize = 1 << 20

    /// Calls `body` with each chunk in order; the buffer is reused, so copy what must outlive the call.
    static func read(_ url: URL, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Foundation.read(descriptor, buffer.baseAddress, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Throws `store_damaged` unless the file at `url` holds `length` bytes whose SHA-256 is
    /// `sha256` (when known); a file that is gone throws its `ENOENT`.
    static func check(_ url: URL, length: Int, sha256: BlobHash?) throws {
        var (hasher, size) = (SHA256(), 0)
        try read(url) { chunk in
            hasher.update(bufferPointer: chunk)
            size += chunk.count
        }
        try checkRead(size: size, length: length, digest: hasher.finalize(), sha256: sha256)
    }

    /// Throws `store_damaged` unless `size` bytes were read of the `length` kept, and their
    /// `digest` is `sha256` (when known).
    static func checkRead(size: Int, length: Int, digest: SHA256.Digest, sha256: BlobHash?) throws {
        guard size == length else { throw PreviewError(.storeDamaged, "its file has \(size) bytes where \(length) were kept") }
        if let sha256, BlobHash(digest) != sha256 { throw PreviewError(.storeDamaged, "its bytes are not those that were kept") }
    }
}
