import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blobs in a directory: `objects/sha256/ab/cd/abcd…`, writes in progress under `tmp/`.
///
/// Several hosts may share one through a network filesystem (DESIGN §11) when `tmp/` and
/// `objects/` are on the same filesystem (publishing is a rename) and rename is atomic there
/// (NFSv4, CephFS, and the like; not a FUSE mount of an object store).
///
/// A blob is written under `tmp/` while it is hashed, fsync'd, renamed into place and its folder
/// fsync'd, so `objects/` never holds a partial blob, whatever instant a crash comes at.
/// Safe to use from several threads and processes: identical content converges on one file.
///
/// Private to its owner: folders it creates are `0700`, blobs `0400`, writes in progress `0600`
/// (strangers' documents; other local users have no business reading them).
public struct BlobStore: BlobStorage {
    public let root: URL
    var objects: URL { root.appendingPathComponent("objects/sha256") }
    public var stagingFolder: URL { root.appendingPathComponent("tmp") }

    /// Opens (creating when needed) a blob store at `root`.
    public init(root: URL) throws {
        self.root = root
        for folder in [root, objects.deletingLastPathComponent(), objects, stagingFolder] { try Self.createPrivateFolder(folder) }
    }

    /// Creates `folder` owner-only when it does not exist; an existing folder keeps the mode its owner gave it.
    static func createPrivateFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Where the blob named `hash` lives (whether or not it exists).
    public func url(for hash: BlobHash) -> URL {
        let hex = hash.hex
        return objects.appendingPathComponent(String(hex.prefix(2)))
            .appendingPathComponent(String(hex.dropFirst(2).prefix(2)))
            .appendingPathComponent(hex)
    }

    public func localFile(for hash: BlobHash) -> URL { url(for: hash) }

    public func contains(_ hash: BlobHash) -> Bool {
        FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    public func read(_ hash: BlobHash) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: url(for: hash))
        defer { try? handle.close() }
        return Array(try handle.readToEnd() ?? Data())
    }

    public func verify(_ hash: BlobHash) throws -> Bool {
        var hasher = SHA256()
        try FileChunks.read(url(for: hash)) { chunk in hasher.update(bufferPointer: chunk) }
        return BlobHash(hasher.finalize()) == hash
    }

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

    public func leftoverTemporaries() throws -> [(url: URL, modified: Date)] {
        try FileManager.default.contentsOfDirectory(at: stagingFolder, includingPropertiesForKeys: [.contentModificationDateKey])
            .map { ($0, (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast) }
    }

    public func remove(_ hash: BlobHash) throws {
        try FileManager.default.removeItem(at: url(for: hash))
    }

    /// `flock` on `reference.lock` in the store folder: across the processes of one host, and across
    /// hosts where the shared filesystem honours it (NFSv4, CephFS).
    public func whileReferencing<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        let descriptor = open(root.appendingPathComponent("reference.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }  // closing releases the lock
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return try body()
    }

    /// Renames the staged file into place, then fsyncs the folders the rename touched. A blob already
    /// there is kept when it is intact; a damaged one (its bytes no longer hash to its name) is
    /// replaced by the staged copy, so storing the same bytes again repairs it.
    public func publish(stagedFile staging: URL, as hash: BlobHash) throws {
        let destination = url(for: hash)
        if FileManager.default.fileExists(atPath: destination.path), (try? verify(hash)) == true {
            try? FileManager.default.removeItem(at: staging)
            return
        }
        let folder = destination.deletingLastPathComponent()
        try Self.createPrivateFolder(folder)
        chmod(staging.path, 0o400)
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
