import Crypto
import Foundation
import PreviewCore
import PreviewDomain

/// A blob found missing from its storage, or not hashing to its name, when it was to be served.
package struct BlobNotIntact: Error {
    package let hash: BlobHash
    package let missing: Bool
}

/// The bytes of a stored blob as a server sends them to a client, checked against the blob's name:
/// the one way to stream a blob, whatever its storage (a local file, an object store's ranged read).
/// What is checked before anything is sent throws ``BlobNotIntact`` from ``open(_:blobs:hash:size:range:whole:offload:)``;
/// what can only be checked as it streams makes the stream throw it instead of its last chunk, so a
/// client sees a broken transfer, never a whole damaged file. Nothing is held in memory whole.
package enum CheckedBlobBytes {
    /// What a stream reads and hands on at a time from a file.
    package static let chunkBytes = 64 * 1024
    /// Blobs up to this size are checked whole before anything is sent.
    package static let checkedBeforeSending = 4 << 20

    /// Whether `source` can be served at all at `size` bytes: a local file that is missing or of
    /// another size cannot (one `stat`; an object store's blob is asked when it is opened).
    package static func isPresent(_ source: BlobServingSource, size: Int) -> Bool {
        guard case let .file(url) = source else { return true }
        var file = stat()
        return stat(url.path, &file) == 0 && Int(file.st_size) == size && size > 0
    }

    /// Bytes `range` of blob `hash` (`size` bytes, as its row says) from `source`:
    /// - a blob of up to ``checkedBeforeSending``, and any part of one, comes from a local file checked
    ///   now (``VerifiedFiles``: hashed once, then trusted while unchanged; an object store's blob is
    ///   fetched into `blobs`' checked copies first);
    /// - a larger one sent `whole` is hashed as it streams, after the object store said it has it.
    /// The file or the ranged read is opened on the stream's first chunk; file reads and hashing run
    /// on `offload`'s reads lane, never on the cooperative pool.
    package static func open(
        _ source: BlobServingSource, blobs: any BlobStorage, hash: BlobHash, size: Int, range: ClosedRange<Int>, whole: Bool,
        offload: Offload
    ) async throws -> BlobByteStream {
        let checkedFirst = !whole || size <= checkedBeforeSending
        switch source {
        case let .file(url):
            if checkedFirst, try await !VerifiedFiles.shared.holds(url, hash, hashingOn: offload) {
                throw BlobNotIntact(hash: hash, missing: false)
            }
            let chunks = fileChunks(url.path, range: range, offload: offload)
            return checkedFirst ? chunks : hashed(chunks, expected: hash, offload: offload)
        case let .remote(remote, _) where !checkedFirst:
            do {
                guard try await remote.storedSize() == size else { throw BlobNotIntact(hash: hash, missing: false) }
            } catch is BlobMissing {
                throw BlobNotIntact(hash: hash, missing: true)
            }
            return hashed(remoteChunks(remote, range: range), expected: hash, offload: offload)
        case .remote:
            do {
                return fileChunks(try await blobs.localFile(for: hash).path, range: range, offload: offload)
            } catch let error where StoreFault(error) == nil {
                throw BlobNotIntact(hash: hash, missing: error is BlobMissing)
            }
        }
    }

    /// Bytes `range` of the file at `path`, ``chunkBytes`` at a time, read on `offload`'s reads lane
    /// through one ``SourceFile``, opened on the first chunk and closed with the stream's last reference.
    private static func fileChunks(_ path: String, range: ClosedRange<Int>, offload: Offload) -> BlobByteStream {
        let state = Locked<(file: SourceFile?, offset: Int)>((nil, range.lowerBound))
        return BlobByteStream {
            let (opened, position) = state.withLock { ($0.file, $0.offset) }
            guard position <= range.upperBound else { return nil }
            let length = min(chunkBytes, range.upperBound + 1 - position)
            let (file, chunk) = try await offload.run(.reads) { () throws -> (SourceFile, [UInt8]) in
                let file: SourceFile
                if let opened {
                    file = opened
                } else {
                    do throws(SourceFile.OpenFailure) {
                        file = try SourceFile(URL(fileURLWithPath: path), followLinks: true)
                    } catch {
                        guard case let .unreadable(code) = error else { throw POSIXError(.EIO) }
                        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
                    }
                }
                return (file, file.read(at: position, count: length))
            }
            // The blob is immutable: a short file here means it was removed or damaged under us.
            guard !chunk.isEmpty else { throw POSIXError(.EIO) }
            state.withLock { $0 = (file, position + chunk.count) }
            return chunk
        }
    }

    /// Bytes `range` of a remote blob in one ranged read, asked for on the first chunk; fewer bytes
    /// than the range holds is the object store's failure (`unavailable`), not the blob's.
    private static func remoteChunks(_ remote: any BlobRangeReader, range: ClosedRange<Int>) -> BlobByteStream {
        let state = Locked<(stream: BlobByteStream?, received: Int)>((nil, 0))
        return BlobByteStream {
            let stream: BlobByteStream
            if let opened = state.withLock({ $0.stream }) {
                stream = opened
            } else {
                stream = try await remote.open(range)
                state.withLock { $0.stream = stream }
            }
            guard let chunk = try await stream.next() else {
                let received = state.withLock { $0.received }
                guard received == range.count else {
                    throw PreviewError(.unavailable, "The object store sent \(received) of \(range.count) bytes.")
                }
                return nil
            }
            state.withLock { $0.received += chunk.count }
            return chunk
        }
    }

    /// `chunks`, hashed as they pass on `offload`'s reads lane, each handed on only once the next has
    /// come: the last is withheld, and ``BlobNotIntact`` thrown instead, unless the whole hashes to `expected`.
    private static func hashed(_ chunks: BlobByteStream, expected: BlobHash, offload: Offload) -> BlobByteStream {
        let state = Locked<(digest: SHA256, held: [UInt8]?, started: Bool)>((SHA256(), nil, false))
        return BlobByteStream {
            if !state.withLock({ $0.started }) {
                state.withLock { $0.started = true }
                guard let first = try await chunks.next() else { return nil }
                try await offload.run(.reads) { state.withLock { $0.digest.update(data: first) } }
                state.withLock { $0.held = first }
            }
            guard let held = state.withLock({ $0.held }) else { return nil }
            if let next = try await chunks.next() {
                try await offload.run(.reads) { state.withLock { $0.digest.update(data: next) } }
                state.withLock { $0.held = next }
                return held
            }
            state.withLock { $0.held = nil }
            guard state.withLock({ BlobHash($0.digest.finalize()) }) == expected else { throw BlobNotIntact(hash: expected, missing: false) }
            return held
        }
    }
}
