import Foundation
import PreviewDomain

/// Where blobs live, named by the SHA-256 of their bytes. ``BlobStore`` keeps them in a
/// directory, which many hosts may share (DESIGN §11); PreviewS3's `S3BlobStorage` in an S3
/// bucket. Writes are staged in a local file, hashed as they arrive, then handed to
/// ``publish(stagedFile:as:role:)``; renderers read through ``localFile(for:)``.
public protocol BlobStorage: Sendable {
    /// A local folder for writes in progress (on the same filesystem as the blobs when they are
    /// published by rename).
    var stagingFolder: URL { get }
    /// Makes the finished file at `stagedFile` the blob `hash`, durably, taking it over; identical
    /// content already present wins and the file is removed. The blob keeps its `role`; an original
    /// stored over a derivative's blob makes it an original.
    func publish(stagedFile: URL, as hash: BlobHash, role: BlobRole) async throws
    /// What blob `hash` was stored as: an original unless it was only ever stored as a derivative
    /// (what `recover` may turn back into a document when the index lost it).
    func role(of hash: BlobHash) async -> BlobRole
    func contains(_ hash: BlobHash) async -> Bool
    /// A local file with the bytes of blob `hash`, for libraries that open paths.
    func localFile(for hash: BlobHash) async throws -> URL
    /// The bytes of blob `hash`.
    func read(_ hash: BlobHash) async throws -> [UInt8]
    /// Hashes blob `hash` again; true when its bytes still match its name.
    func verify(_ hash: BlobHash) async throws -> Bool
    /// Every blob with its size and modification time.
    func allBlobs() async throws -> [(hash: BlobHash, size: Int, modified: Date)]
    func remove(_ hash: BlobHash) async throws
    /// Moves blob `hash` out of the store into its quarantine, where it stays until ``purgeQuarantine(before:)``.
    func quarantine(_ hash: BlobHash) async throws
    /// Blobs in the quarantine, with their sizes and when they were moved there.
    func quarantined() async throws -> [(hash: BlobHash, size: Int, modified: Date)]
    /// Moves blob `hash` from the quarantine back into the store (unless it is there already).
    func unquarantine(_ hash: BlobHash) async throws
    /// Deletes what was moved into the quarantine before `cutoff`; returns how many blobs and bytes.
    func purgeQuarantine(before cutoff: Date) async throws -> (blobs: Int, bytes: Int)
    /// Marks blob `hash` pending: about to be stored for a document whose row is not committed yet.
    /// A pending blob that no row names is the orphan of a refused or interrupted write (nothing was
    /// acknowledged), not a loss: ``Store/verify(rehash:)`` says so, `gc` collects it after its grace
    /// period and `recover` leaves it alone. A mark that was never made errs on the side of keeping.
    func markPending(_ hash: BlobHash) async throws
    /// Removes the pending mark of `hash` (none is no error).
    func clearPending(_ hash: BlobHash) async throws
    /// The pending marks, with when each was made.
    func pendingMarks() async throws -> [(hash: BlobHash, modified: Date)]
    /// Runs `body` while holding the store's reference lock: shared by writers between taking a
    /// blob (new or already there) and committing the row that names it, exclusive for `gc`
    /// between reading which blobs are referenced and removing the others. So `gc` never removes a
    /// blob a writer has just decided to reuse.
    func whileReferencing<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T
    /// Where a server reads blob `hash` from to send it to a client; `size`, when the caller knows it,
    /// saves asking the object store.
    func servingSource(for hash: BlobHash, size: Int?) async throws -> BlobServingSource
    /// Checks the local copies of remote blobs, removing the damaged ones; those it removed.
    func checkLocalCopies() async -> [BlobHash]
    /// True when reading a blob costs a transfer from elsewhere (an object store): `verify` then
    /// re-hashes only when asked to.
    var isRemote: Bool { get }
}

/// Where a server sends a blob's bytes from: a local file, or a remote object read by byte range
/// (one request per range a client asks for, never a whole download first).
public enum BlobServingSource: Sendable {
    case file(URL)
    case remote(any BlobRangeReader, size: Int)
}

/// Reads byte ranges of one remote blob.
public protocol BlobRangeReader: Sendable {
    /// Asks for bytes `range` of the blob in one request, and returns once the store has answered:
    /// a missing object (``BlobMissing``) or a refusal throws here, before anything was sent on.
    /// The bytes then arrive through the stream, in order.
    func open(_ range: ClosedRange<Int>) async throws -> BlobByteStream
    /// The size the store holds the blob at (blocking: one request); ``BlobMissing`` when it has none.
    func storedSize() async throws -> Int
}

/// The bytes of a range a ``BlobRangeReader`` opened, read by one task in order; nil at the end.
public struct BlobByteStream: Sendable {
    private let nextChunk: @Sendable () async throws -> [UInt8]?

    package init(next: @escaping @Sendable () async throws -> [UInt8]?) {
        nextChunk = next
    }

    package func next() async throws -> [UInt8]? { try await nextChunk() }
}

/// A blob the index names that its storage does not have.
public struct BlobMissing: Error, CustomStringConvertible {
    package let hash: String

    package init(_ hash: String) {
        self.hash = hash
    }

    public var description: String { "blob \(hash) is missing from its storage" }
}

extension BlobStorage {
    /// A store whose blobs are local files has no copies of them.
    public func checkLocalCopies() -> [BlobHash] { [] }

    public func servingSource(for hash: BlobHash, size: Int?) async throws -> BlobServingSource { .file(try await localFile(for: hash)) }

    public var isRemote: Bool { false }

    /// Files left in the staging folder by interrupted writes, with their modification times.
    package func leftoverTemporaries() throws -> [(url: URL, modified: Date)] {
        try FileManager.default.contentsOfDirectory(at: stagingFolder, includingPropertiesForKeys: [.contentModificationDateKey])
            .map { ($0, (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast) }
    }

    /// Copies the file at `source` in, hashing as it goes. Returns its hash and size; identical
    /// content already present is not written twice. The copy blocks: a caller on Swift's
    /// cooperative pool runs it through an ``Offload`` lane (``stage(fileAt:)``).
    package func put(fileAt source: URL) async throws -> (hash: BlobHash, size: Int) {
        let writer = try stage(fileAt: source)
        return (try await writer.publish(as: .original), writer.size)
    }

    /// Copies the file at `source` into the staging folder, hashing as it goes (one read of the
    /// file), and returns the finished writer: `publish()` it to keep it, drop it to discard the copy.
    /// Blocking file work, like ``BlobWriter/write(_:)``.
    package func stage(fileAt source: URL) throws -> BlobWriter {
        try stage(try SourceFile(source, followLinks: true))
    }

    /// Copies `source` from its start into the staging folder, hashing as it goes; throws
    /// ``SourceFile/TooLarge`` past `limit` bytes.
    package func stage(_ source: SourceFile, limit: Int = .max) throws -> BlobWriter {
        let writer = try BlobWriter(storage: self)
        try source.chunks(limit: limit) { chunk in try writer.write(chunk) }
        try writer.finish()
        return writer
    }

    /// Stores `bytes` as `role`. Returns their hash.
    @discardableResult
    public func put(bytes: [UInt8], as role: BlobRole) async throws -> BlobHash {
        let writer = try BlobWriter(storage: self)
        try writer.write(Data(bytes))
        try writer.finish()
        return try await writer.publish(as: role)
    }
}

/// Why a blob was stored: a document's original bytes, or something made from them (a preview, a
/// PDF pivot) that can be made again.
public enum BlobRole: String, Sendable, Codable {
    case original, derivative
}
