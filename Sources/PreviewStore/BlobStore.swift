import CFileAttributes
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blobs in a directory: `objects/sha256/ab/cd/abcd…`, writes in progress under `tmp/`, blobs
/// `gc` removed under `quarantine/sha256/` until their grace period is over, pending marks (empty
/// files) under `pending/sha256/`. A derivative's blob carries the extended attribute
/// `user.docpreview.role` = `derivative`.
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
    var quarantineFolder: URL { root.appendingPathComponent("quarantine/sha256") }
    var pendingFolder: URL { root.appendingPathComponent("pending/sha256") }
    private static let roleAttribute = "user.docpreview.role"

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
        objects.appendingPathComponent(hash.fannedOut)
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

    public func role(of hash: BlobHash) -> BlobRole {
        Self.role(at: url(for: hash))
    }

    /// The role recorded on the blob file at `url`: an original unless it says otherwise.
    private static func role(at url: URL) -> BlobRole {
        var value = [UInt8](repeating: 0, count: 16)
        let length = getxattr(url.path, roleAttribute, &value, value.count)
        guard length > 0 else { return .original }
        return BlobRole(rawValue: String(decoding: value.prefix(length), as: UTF8.self)) ?? .original
    }

    public func remove(_ hash: BlobHash) throws {
        try FileManager.default.removeItem(at: url(for: hash))
    }

    public func quarantine(_ hash: BlobHash) throws {
        try Self.createPrivateFolder(quarantineFolder)
        let source = url(for: hash), destination = quarantineFolder.appendingPathComponent(hash.hex)
        try Self.rename(source, to: destination)
        // The grace period counts from the move, not from when the blob was written.
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: destination.path)
        for folder in [source.deletingLastPathComponent(), quarantineFolder] { try Self.synchronizeFolder(folder) }
    }

    /// Not fsync'd: a mark lost in a crash leaves the blob counted as a loss, which keeps it.
    public func markPending(_ hash: BlobHash) throws {
        try Self.createPrivateFolder(pendingFolder)
        let mark = pendingFolder.appendingPathComponent(hash.hex)
        guard FileManager.default.createFile(atPath: mark.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    public func clearPending(_ hash: BlobHash) throws {
        guard unlink(pendingFolder.appendingPathComponent(hash.hex).path) == 0 || errno == ENOENT else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    public func pendingMarks() throws -> [(hash: BlobHash, modified: Date)] {
        guard FileManager.default.fileExists(atPath: pendingFolder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: pendingFolder, includingPropertiesForKeys: [.contentModificationDateKey]).compactMap { url in
            guard let hash = BlobHash(hex: url.lastPathComponent) else { return nil }
            return (hash, try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate ?? .distantPast)
        }
    }

    public func quarantined() throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        guard FileManager.default.fileExists(atPath: quarantineFolder.path) else { return [] }
        let keys: Set<URLResourceKey> = [.fileSizeKey, .contentModificationDateKey]
        return try FileManager.default.contentsOfDirectory(at: quarantineFolder, includingPropertiesForKeys: Array(keys)).compactMap { url in
            guard let hash = BlobHash(hex: url.lastPathComponent) else { return nil }
            let values = try url.resourceValues(forKeys: keys)
            return (hash, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
    }

    /// Published like a staged copy, with the role it was stored as: an intact blob already in place wins.
    public func unquarantine(_ hash: BlobHash) throws {
        let source = quarantineFolder.appendingPathComponent(hash.hex)
        try publish(stagedFile: source, as: hash, role: Self.role(at: source))
    }

    public func purgeQuarantine(before cutoff: Date) throws -> (blobs: Int, bytes: Int) {
        var purged = (blobs: 0, bytes: 0)
        for blob in try quarantined() where blob.modified < cutoff {
            try FileManager.default.removeItem(at: quarantineFolder.appendingPathComponent(blob.hash.hex))
            purged.blobs += 1
            purged.bytes += blob.size
        }
        return purged
    }

    /// `flock` on `reference.lock` in the store folder (``FileReferenceLock``).
    public func whileReferencing<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
        try FileReferenceLock(file: root.appendingPathComponent("reference.lock")).whileHeld(exclusive: exclusive, body)
    }

    /// Renames the staged file into place, then fsyncs the folders the rename touched. A blob already
    /// there is kept when it is intact; a damaged one (its bytes no longer hash to its name) is
    /// replaced by the staged copy, so storing the same bytes again repairs it.
    public func publish(stagedFile staging: URL, as hash: BlobHash, role: BlobRole) throws {
        let destination = url(for: hash)
        if FileManager.default.fileExists(atPath: destination.path), (try? verify(hash)) == true {
            try? FileManager.default.removeItem(at: staging)
            if role == .original, self.role(of: hash) == .derivative { try Self.unmarkDerivative(destination) }
            return
        }
        let folder = destination.deletingLastPathComponent()
        try Self.createPrivateFolder(folder)
        if role == .derivative {
            // Best effort: on a filesystem without user attributes every blob counts as an original,
            // which errs on the side of keeping (recover may then make a document of a preview).
            _ = setxattr(staging.path, Self.roleAttribute, BlobRole.derivative.rawValue, BlobRole.derivative.rawValue.utf8.count, 0)
        }
        chmod(staging.path, 0o400)
        try Self.rename(staging, to: destination)
        // The rename, and any folder created for it, must survive a crash: sync up to objects/.
        for level in [folder, folder.deletingLastPathComponent(), objects] { try Self.synchronizeFolder(level) }
    }

    /// Makes the derivative blob at `url` an original (its attribute can only be changed while writable).
    private static func unmarkDerivative(_ url: URL) throws {
        chmod(url.path, 0o600)
        defer { chmod(url.path, 0o400) }
        guard removexattr(url.path, roleAttribute) == 0 || errno == ENODATA else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    private static func rename(_ source: URL, to destination: URL) throws {
        guard Glibc.rename(source.path, destination.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// fsync on a folder makes a rename inside it durable.
    private static func synchronizeFolder(_ folder: URL) throws {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
