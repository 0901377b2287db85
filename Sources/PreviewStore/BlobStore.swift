import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Immutable blobs named by the SHA-256 of their bytes: `objects/sha256/ab/cd/abcd…`.
///
/// A blob is written under `tmp/` while it is hashed, fsync'd, renamed into place and its folder
/// fsync'd, so `objects/` never holds a partial blob, whatever instant a crash comes at.
/// Safe to use from several threads and processes: identical content converges on one file.
public struct BlobStore: Sendable {
    public let root: URL
    var objects: URL { root.appendingPathComponent("objects/sha256") }
    var temporary: URL { root.appendingPathComponent("tmp") }

    /// Opens (creating when needed) a blob store at `root`.
    public init(root: URL) throws {
        self.root = root
        for folder in [objects, temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// Where the blob named `hash` lives (whether or not it exists).
    public func url(for hash: BlobHash) -> URL {
        let hex = hash.hex
        return objects.appendingPathComponent(String(hex.prefix(2)))
            .appendingPathComponent(String(hex.dropFirst(2).prefix(2)))
            .appendingPathComponent(hex)
    }

    public func contains(_ hash: BlobHash) -> Bool {
        FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    /// Copies the file at `source` in, hashing as it goes. Returns its hash and size; identical
    /// content already present is not written twice.
    public func put(fileAt source: URL) throws -> (hash: BlobHash, size: Int) {
        let writer = try stage(fileAt: source)
        return (try writer.publish(), writer.size)
    }

    /// Copies the file at `source` under `tmp/`, hashing as it goes (one read of the file), and
    /// returns the finished writer: `publish()` it to keep it, drop it to discard the copy.
    public func stage(fileAt source: URL) throws -> BlobWriter {
        let writer = try BlobWriter(store: self)
        try FileChunks.read(source) { chunk in try writer.write(chunk) }
        try writer.finish()
        return writer
    }

    /// Stores `bytes`. Returns their hash.
    @discardableResult
    public func put(bytes: [UInt8]) throws -> BlobHash {
        let writer = try BlobWriter(store: self)
        try writer.write(Data(bytes))
        try writer.finish()
        return try writer.publish()
    }

    /// The bytes of blob `hash`.
    public func read(_ hash: BlobHash) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: url(for: hash))
        defer { try? handle.close() }
        return Array(try handle.readToEnd() ?? Data())
    }

    /// Hashes blob `hash` again; true when its bytes still match its name.
    public func verify(_ hash: BlobHash) throws -> Bool {
        var hasher = SHA256()
        try FileChunks.read(url(for: hash)) { chunk in hasher.update(bufferPointer: chunk) }
        return BlobHash(hasher.finalize()) == hash
    }

    /// Every blob on disk with its size and modification time.
    public func allBlobs() throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        guard let walker = FileManager.default.enumerator(at: objects, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]) else { return [] }
        var blobs: [(BlobHash, Int, Date)] = []
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey])
            guard values.isRegularFile == true, let hash = BlobHash(hex: url.lastPathComponent) else { continue }
            blobs.append((hash, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast))
        }
        return blobs
    }

    /// Files left in `tmp/` by interrupted writes, with their modification times.
    public func leftoverTemporaries() throws -> [(url: URL, modified: Date)] {
        try FileManager.default.contentsOfDirectory(at: temporary, includingPropertiesForKeys: [.contentModificationDateKey])
            .map { ($0, (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast) }
    }

    public func remove(_ hash: BlobHash) throws {
        try FileManager.default.removeItem(at: url(for: hash))
    }

    /// Moves a finished, fsync'd temporary file into place under `hash`; identical content already
    /// present wins and the temporary is removed.
    func publish(_ staging: URL, as hash: BlobHash) throws {
        let destination = url(for: hash)
        if FileManager.default.fileExists(atPath: destination.path) {
            try? FileManager.default.removeItem(at: staging)
            return
        }
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(staging.path, 0o444)
        guard rename(staging.path, destination.path) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        // The rename, and any folder created for it, must survive a crash: sync up to objects/.
        for level in [folder, folder.deletingLastPathComponent(), objects] { try Self.synchronizeFolder(level) }
    }

    /// fsync on a folder makes a rename inside it durable.
    private static func synchronizeFolder(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
