import Crypto
import Foundation
import PreviewCore
import PreviewDomain

/// One blob being written: bytes go to a file in the storage's staging folder and into a SHA-256
/// as they arrive (an upload is never held whole in memory). `finish()` names its hash;
/// `publish()` hands the file to the storage, which makes it durable. A writer that is never
/// published removes its temporary file, so content found to be stored already costs no disk flush.
///
/// Not thread-safe: one writer per upload. Its writes block (file IO): callers on Swift's
/// cooperative pool make them on an ``Offload`` lane.
package final class BlobWriter: @unchecked Sendable {  // used by one task at a time, handed between threads in turn
    private let storage: any BlobStorage
    /// The temporary file, readable once `finish()` returned (to validate before publishing).
    package let stagedURL: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var hash: BlobHash?
    private var published = false
    package private(set) var size = 0

    package init(storage: any BlobStorage) throws {
        self.storage = storage
        stagedURL = storage.stagingFolder.appendingPathComponent("\(UUID().uuidString).partial")
        let descriptor = open(stagedURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        // The error keeps its errno: a full disk must be told apart from other failures.
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit {
        try? handle.close()
        if !published { try? FileManager.default.removeItem(at: stagedURL) }
    }

    package func write(_ bytes: some DataProtocol) throws {
        precondition(hash == nil, "write after finish")
        hasher.update(data: bytes)
        try handle.write(contentsOf: bytes)
        size += bytes.count
    }

    /// Appends the whole file at `url` (a staged part of an upload, ``UploadStaging/copy(_:into:)``),
    /// which must be `length` bytes long whose SHA-256 is `sha256` (when known): other bytes are
    /// `store_damaged`, and this writer must not be published then.
    package func write(contentsOf url: URL, length: Int, sha256: BlobHash? = nil) throws {
        let before = size
        var part = SHA256()
        try FileChunks.read(url) { chunk in
            part.update(bufferPointer: chunk)
            try write(chunk)
        }
        try FileChunks.checkRead(size: size - before, length: length, digest: part.finalize(), sha256: sha256)
    }

    /// Returns the content's hash; no more writes (the file stays open until `publish()` or the end).
    @discardableResult
    package func finish() throws -> BlobHash {
        if let hash { return hash }
        let digest = BlobHash(hasher.finalize())
        hash = digest
        return digest
    }

    /// Makes the blob durable under its hash, stored as `role` (``BlobStorage/publish(stagedFile:as:role:)``).
    package func publish(as role: BlobRole) async throws -> BlobHash {
        let hash = try finish()
        try handle.close()
        try await storage.publish(stagedFile: stagedURL, as: hash, role: role)
        published = true
        return hash
    }
}
