import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import PreviewCore
import PreviewStore

/// The bodies ``ContentController`` streams: a blob's bytes from a local file or an object
/// store, read a chunk at a time as the client takes them, checked against the blob's name as they go.
extension ContentController {
    /// Bytes `range` of a remote blob in one ranged read, passed on as they arrive (the next only
    /// once the one before was written). The whole blob is checked against `expected` as it goes,
    /// on `hasher`'s reads lane, like a file's: the last chunk is withheld until it completes the hash.
    static func remoteBody(
        _ remote: any BlobRangeReader, range: ClosedRange<Int>, hasher: Offload, expected: BlobHash?,
        logger: Logger
    ) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            let digest = expected.map { _ in Locked(SHA256()) }
            var received = 0
            var held: [UInt8]?
            let stream = try await remote.open(range)
            while let chunk = try await stream.next() {
                received += chunk.count
                if let digest { try await hasher.run(.reads) { digest.withLock { $0.update(data: chunk) } } }
                if let previous = held { try await writer.write(ByteBuffer(bytes: previous)) }
                held = chunk
            }
            guard received == range.count else {
                logger.error("the object store sent fewer bytes than asked", metadata: ["bytes": "\(received)", "expected": "\(range.count)"])
                throw PreviewError(.unavailable, "The object store sent \(received) of \(range.count) bytes.")
            }
            if let expected, let digest, digest.withLock({ BlobHash($0.finalize()) }) != expected {
                logger.error("a stored original is damaged; its download was aborted", metadata: ["preview.sha256": "\(expected)"])
                ServiceMetrics.damagedBlobs(kind: "original", problem: "damaged")
                throw PreviewError(.storeDamaged, "The stored file is damaged.")
            }
            if let held { try await writer.write(ByteBuffer(bytes: held)) }
            try await writer.finish(nil)
        }
    }

    /// What a streamed response reads and sends at a time; `serve` maps buffers of this size and more
    /// straight from the kernel (see `ServeCommand`), so their pages go back when they are freed.
    package static let chunkBytes = 64 * 1024

    /// Bytes `range` of the file at `path`, read 64 KiB at a time on `reader`'s reads lane: never
    /// whole into memory, never on the cooperative pool, and the next chunk only once `channel` has
    /// written all but a few of those before it (a client that stops reading holds those until the
    /// write timeout closes its connection).
    ///
    /// With `expected`, the bytes are hashed as they go: when the last chunk does not complete that
    /// hash, the response is aborted (the client sees a broken transfer, never a whole damaged file),
    /// logged and counted.
    static func fileBody(
        path: String, range: ClosedRange<Int>, reader: Offload, channel: (any Channel)?,
        expected: BlobHash?, logger: Logger
    ) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            let file = try await reader.run(.reads) { () throws -> Int32 in
                let file = open(path, O_RDONLY | O_CLOEXEC)
                guard file >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return file
            }
            defer { close(file) }
            let stall = await WriteStall.of(channel)
            let writesBefore = stall?.writesCompleted ?? 0
            // Updated on the reader's threads, one chunk at a time.
            let hasher = expected.map { _ in Locked(SHA256()) }
            var (offset, chunks) = (range.lowerBound, 0)
            while offset <= range.upperBound {
                if let stall, await !stall.waitForRoom(since: writesBefore, chunksSent: chunks) { throw CancellationError() }
                chunks += 1
                let (position, length) = (offset, min(Self.chunkBytes, range.upperBound + 1 - offset))
                // Read and hashed on the reader's threads, never on the cooperative pool.
                let chunk = try await reader.run(.reads) { () throws -> [UInt8] in
                    var chunk = [UInt8](repeating: 0, count: length)
                    let count = chunk.withUnsafeMutableBytes { pread(file, $0.baseAddress, length, off_t(position)) }
                    // The blob is immutable: a short file here means it was removed or damaged under us.
                    guard count > 0 else { throw POSIXError(count == 0 ? .EIO : POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    chunk.removeSubrange(count...)
                    hasher?.withLock { $0.update(data: chunk) }
                    return chunk
                }
                offset += chunk.count
                if let expected, let hasher, offset > range.upperBound, hasher.withLock({ BlobHash($0.finalize()) }) != expected {
                    logger.error("a stored original is damaged; its download was aborted", metadata: ["preview.sha256": "\(expected)"])
                    ServiceMetrics.damagedBlobs(kind: "original", problem: "damaged")
                    throw PreviewError(.storeDamaged, "The stored file is damaged.")
                }
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }
}
