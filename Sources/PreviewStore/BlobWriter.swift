import Crypto
import Foundation

/// One blob being written: bytes go to a file under `tmp/` and into a SHA-256 as they arrive (an
/// upload is never held whole in memory). `finish()` fsyncs; `publish()` renames it into place.
/// A writer that is never published removes its temporary file.
///
/// Not thread-safe: one writer per upload.
public final class BlobWriter {
    private let store: BlobStore
    /// The temporary file, readable once `finish()` returned (to validate before publishing).
    public let stagedURL: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var hash: BlobHash?
    private var published = false
    public private(set) var size = 0

    public init(store: BlobStore) throws {
        self.store = store
        stagedURL = store.temporary.appendingPathComponent("\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: stagedURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: stagedURL.path])
        }
        handle = try FileHandle(forWritingTo: stagedURL)
    }

    deinit {
        try? handle.close()
        if !published { try? FileManager.default.removeItem(at: stagedURL) }
    }

    public func write(_ bytes: some DataProtocol) throws {
        precondition(hash == nil, "write after finish")
        hasher.update(data: bytes)
        try handle.write(contentsOf: bytes)
        size += bytes.count
    }

    /// Flushes to disk and returns the content's hash; no more writes.
    @discardableResult
    public func finish() throws -> BlobHash {
        if let hash { return hash }
        try handle.synchronize()
        try handle.close()
        let digest = BlobHash(hasher.finalize())
        hash = digest
        return digest
    }

    /// Makes the blob durable under its hash (after `finish()`).
    public func publish() throws -> BlobHash {
        let hash = try finish()
        try store.publish(stagedURL, as: hash)
        published = true
        return hash
    }
}
