import Foundation
import PreviewCore

/// Where the bytes of uploads in progress wait until their upload completes. A part is received
/// into a local file (``UploadPartFile``), then kept: made durable where every host of the store
/// can read it. Only once the index lists a kept part (``UploadSessions/append(_:to:length:)``)
/// does it count; a part kept but never listed is a leftover for `gc`.
public protocol UploadStaging: Sendable {
    /// A new file to receive the bytes of upload `session` from offset `start` into.
    func newPart(of session: String, at start: Int) throws -> UploadPartFile
    /// Makes `file`'s bytes durable and returns the part they are.
    func keep(_ file: UploadPartFile) async throws -> UploadPart
    /// Appends the bytes of `part` to `writer`.
    func copy(_ part: UploadPart, into writer: BlobWriter) async throws
    /// Removes the parts' bytes (what is already gone is no failure).
    func remove(_ parts: [UploadPart], of session: String) async
    /// Every part kept, by name, with when it was kept (for `gc`: parts no upload lists).
    func kept() async throws -> [(name: String, modified: Date)]
    /// Removes this host's own files of uploads (copies, bytes being received) older than
    /// `cutoff`, where they are not the kept parts themselves.
    func removeLocalLeftovers(before cutoff: Date) async
}

/// Bytes of one part as they arrive: written to a file, never held in memory. Used by one request
/// at a time. Its writes go to the page cache; ``UploadStaging/keep(_:)`` makes them durable.
public final class UploadPartFile: @unchecked Sendable {  // one request writes it, then hands it on
    public let url: URL
    public let start: Int
    public let name: String
    private let handle: FileHandle
    public private(set) var length = 0

    /// A new file at `url` (which must not exist), for the part `name` from offset `start`.
    public init(url: URL, start: Int, name: String) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.url = url
        self.start = start
        self.name = name
    }

    public func write(_ bytes: some DataProtocol) throws {
        try handle.write(contentsOf: bytes)
        length += bytes.count
    }

    /// Flushes the bytes to disk and closes the file.
    public func synchronize() throws {
        try handle.synchronize()
        try handle.close()
    }

    /// Closes the file, its bytes kept.
    public func close() throws {
        try handle.close()
    }

    /// Closes the file and removes it: its bytes are not kept.
    public func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}

/// Parts as files in the store folder's `uploads/` (one folder per upload), which every host
/// sharing the folder reaches: kept by `fsync` of the file and its folder.
public struct FolderUploadStaging: UploadStaging {
    public let folder: URL
    private let offload: Offload

    public init(root: URL, offload: Offload) throws {
        folder = root.appendingPathComponent("uploads")
        self.offload = offload
        try BlobStore.createPrivateFolder(folder)
    }

    public func newPart(of session: String, at start: Int) throws -> UploadPartFile {
        let sessionFolder = folder.appendingPathComponent(session)
        try BlobStore.createPrivateFolder(sessionFolder)
        let name = "\(session)/\(start)-\(UUID().uuidString.lowercased()).part"
        return try UploadPartFile(url: folder.appendingPathComponent(name), start: start, name: name)
    }

    public func keep(_ file: UploadPartFile) async throws -> UploadPart {
        try await offload.run(.writes) {
            try file.synchronize()
            try BlobStore.synchronizeFolder(file.url.deletingLastPathComponent())
        }
        return UploadPart(start: file.start, length: file.length, name: file.name)
    }

    public func copy(_ part: UploadPart, into writer: BlobWriter) async throws {
        let url = folder.appendingPathComponent(part.name)
        try await offload.run(.writes) { try writer.write(contentsOf: url, length: part.length) }
    }

    public func kept() async throws -> [(name: String, modified: Date)] {
        let folder = folder
        return try await offload.run(.reads) {
            var found: [(String, Date)] = []
            for session in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let sessionFolder = folder.appendingPathComponent(session)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: sessionFolder.path)) ?? [] where file.hasSuffix(".part") {
                    let modified = (try? sessionFolder.appendingPathComponent(file).resourceValues(forKeys: [.contentModificationDateKey]))?
                        .contentModificationDate ?? .distantPast
                    found.append(("\(session)/\(file)", modified))
                }
            }
            return found
        }
    }

    /// The folder's files are the kept parts: ``kept()`` lists them all.
    public func removeLocalLeftovers(before cutoff: Date) async {}

    public func remove(_ parts: [UploadPart], of session: String) async {
        let sessionFolder = folder.appendingPathComponent(session)
        _ = try? await offload.run(.writes) {
            for part in parts { try? FileManager.default.removeItem(at: sessionFolder.deletingLastPathComponent().appendingPathComponent(part.name)) }
            // The folder goes once empty (a part being received still holds it).
            rmdir(sessionFolder.path)
        }
    }
}
