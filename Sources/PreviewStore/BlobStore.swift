import CFileAttributes
import Crypto
import Foundation
import PreviewCore
import PreviewDomain
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
///
/// Its file work (reads, hashing, renames, fsync, `flock`) runs on the lanes of its ``Offload``.
public struct BlobStore: BlobStorage {
    package let root: URL
    private let offload: Offload
    var objects: URL { root.appendingPathComponent("objects/sha256") }
    public var stagingFolder: URL { root.appendingPathComponent("tmp") }
    var quarantineFolder: URL { root.appendingPathComponent("quarantine/sha256") }
    var pendingFolder: URL { root.appendingPathComponent("pending/sha256") }
    private static let roleAttribute = "user.docpreview.role"

    /// Opens (creating when needed) a blob store at `root`, its file work on `offload`'s lanes.
    public init(root: URL, offload: Offload) throws {
        self.root = root
        self.offload = offload
        for folder in [root, objects.deletingLastPathComponent(), objects, stagingFolder] { try Self.createPrivateFolder(folder) }
    }

    /// Creates `folder` owner-only when it does not exist; an existing folder keeps the mode its owner gave it.
    static func createPrivateFolder(_ folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Where the blob named `hash` lives (whether or not it exists).
    package func url(for hash: BlobHash) -> URL {
        objects.appendingPathComponent(hash.fannedOut)
    }

    public func localFile(for hash: BlobHash) -> URL { url(for: hash) }

    public func contains(_ hash: BlobHash) async -> Bool {
        let path = url(for: hash).path
        return (try? await offload.run(.reads) { FileManager.default.fileExists(atPath: path) }) ?? false
    }

    public func read(_ hash: BlobHash) async throws -> [UInt8] {
        let url = url(for: hash)
        return try await offload.run(.reads) {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return Array(try handle.readToEnd() ?? Data())
        }
    }

    public func verify(_ hash: BlobHash) async throws -> Bool {
        let url = url(for: hash)
        return try await offload.run(.reads) { try Self.verify(url, hash) }
    }

    private static func verify(_ url: URL, _ hash: BlobHash) throws -> Bool {
        var hasher = SHA256()
        try FileChunks.read(url) { chunk in hasher.update(bufferPointer: chunk) }
        return BlobHash(hasher.finalize()) == hash
    }

    public func allBlobs() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        let objects = objects
        return try await offload.run(.reads) { try Self.blobs(under: objects) }
    }

    private static func blobs(under objects: URL) throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        guard
            let walker = FileManager.default.enumerator(
                at: objects, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey])
        else { return [] }
        var blobs: [(BlobHash, Int, Date)] = []
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey])
            guard values.isRegularFile == true, let hash = BlobHash(hex: url.lastPathComponent) else { continue }
            blobs.append((hash, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast))
        }
        return blobs
    }

    public func role(of hash: BlobHash) async -> BlobRole {
        let url = url(for: hash)
        return (try? await offload.run(.reads) { Self.role(at: url) }) ?? .original
    }

    /// The role recorded on the blob file at `url`: an original unless it says otherwise.
    private static func role(at url: URL) -> BlobRole {
        var value = [UInt8](repeating: 0, count: 16)
        let length = getxattr(url.path, roleAttribute, &value, value.count)
        guard length > 0 else { return .original }
        return BlobRole(rawValue: String(decoding: value.prefix(length), as: UTF8.self)) ?? .original
    }

    public func remove(_ hash: BlobHash) async throws {
        let url = url(for: hash)
        try await offload.run(.writes) { try FileManager.default.removeItem(at: url) }
    }

    public func quarantine(_ hash: BlobHash) async throws {
        let source = url(for: hash), quarantineFolder = quarantineFolder
        try await offload.run(.writes) {
            try Self.createPrivateFolder(quarantineFolder)
            let destination = quarantineFolder.appendingPathComponent(hash.hex)
            try Self.rename(source, to: destination)
            // The grace period counts from the move, not from when the blob was written.
            try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: destination.path)
            for folder in [source.deletingLastPathComponent(), quarantineFolder] { try Self.synchronizeFolder(folder) }
        }
    }

    /// Not fsync'd: a mark lost in a crash leaves the blob counted as a loss, which keeps it.
    public func markPending(_ hash: BlobHash) async throws {
        let pendingFolder = pendingFolder
        try await offload.run(.writes) {
            try Self.createPrivateFolder(pendingFolder)
            let mark = pendingFolder.appendingPathComponent(hash.hex)
            guard FileManager.default.createFile(atPath: mark.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
    }

    public func clearPending(_ hash: BlobHash) async throws {
        let mark = pendingFolder.appendingPathComponent(hash.hex)
        try await offload.run(.writes) {
            guard unlink(mark.path) == 0 || errno == ENOENT else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }

    public func pendingMarks() async throws -> [(hash: BlobHash, modified: Date)] {
        let pendingFolder = pendingFolder
        return try await offload.run(.reads) {
            guard FileManager.default.fileExists(atPath: pendingFolder.path) else { return [] }
            return try FileManager.default.contentsOfDirectory(at: pendingFolder, includingPropertiesForKeys: [.contentModificationDateKey])
                .compactMap { url in
                    guard let hash = BlobHash(hex: url.lastPathComponent) else { return nil }
                    return (hash, try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate ?? .distantPast)
                }
        }
    }

    public func quarantined() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        let quarantineFolder = quarantineFolder
        return try await offload.run(.reads) { try Self.quarantined(in: quarantineFolder) }
    }

    private static func quarantined(in quarantineFolder: URL) throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        guard FileManager.default.fileExists(atPath: quarantineFolder.path) else { return [] }
        let keys: Set<URLResourceKey> = [.fileSizeKey, .contentModificationDateKey]
        return try FileManager.default.contentsOfDirectory(at: quarantineFolder, includingPropertiesForKeys: Array(keys)).compactMap { url in
            guard let hash = BlobHash(hex: url.lastPathComponent) else { return nil }
            let values = try url.resourceValues(forKeys: keys)
            return (hash, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
    }

    /// Published like a staged copy, with the role it was stored as: an intact blob already in place wins.
    public func unquarantine(_ hash: BlobHash) async throws {
        let source = quarantineFolder.appendingPathComponent(hash.hex)
        let role = try await offload.run(.reads) { Self.role(at: source) }
        try await publish(stagedFile: source, as: hash, role: role)
    }

    public func purgeQuarantine(before cutoff: Date) async throws -> (blobs: Int, bytes: Int) {
        let quarantineFolder = quarantineFolder
        return try await offload.run(.writes) {
            var purged = (blobs: 0, bytes: 0)
            for blob in try Self.quarantined(in: quarantineFolder) where blob.modified < cutoff {
                try FileManager.default.removeItem(at: quarantineFolder.appendingPathComponent(blob.hash.hex))
                purged.blobs += 1
                purged.bytes += blob.size
            }
            return purged
        }
    }

    /// `flock` on `reference.lock` in the store folder (``FileReferenceLock``).
    public func whileReferencing<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T {
        try await FileReferenceLock(file: root.appendingPathComponent("reference.lock"), offload: offload).whileHeld(exclusive: exclusive, body)
    }

    /// Flushes the staged file, renames it into place, then fsyncs the folders the rename touched. A
    /// blob already there is kept when it is intact; a damaged one (its bytes no longer hash to its
    /// name) is replaced by the staged copy, so storing the same bytes again repairs it.
    public func publish(stagedFile staging: URL, as hash: BlobHash, role: BlobRole) async throws {
        let destination = url(for: hash), objects = objects
        try await offload.run(.writes) { try Self.publish(staging, to: destination, as: hash, role: role, objects: objects) }
    }

    private static func publish(_ staging: URL, to destination: URL, as hash: BlobHash, role: BlobRole, objects: URL) throws {
        if FileManager.default.fileExists(atPath: destination.path), (try? verify(destination, hash)) == true {
            try? FileManager.default.removeItem(at: staging)
            if role == .original, Self.role(at: destination) == .derivative { try unmarkDerivative(destination) }
            return
        }
        try synchronize(staging)
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
    static func synchronizeFolder(_ folder: URL) throws {
        try synchronize(folder, flags: O_DIRECTORY)
    }

    /// fsync on the file at `url`: its bytes are on disk before a rename makes it a blob.
    static func synchronize(_ url: URL, flags: Int32 = 0) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | flags)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
