import Crypto
import Foundation
import PreviewCore
import PreviewDomain

/// Where the bytes of uploads in progress wait until their upload completes. A part is received
/// into a local file (``UploadPartFile``), then kept: made durable where every host of the store
/// can read it. Only once the index lists a kept part (``UploadSessions/append(_:to:length:)``)
/// does it count; a part kept but never listed is a leftover for `gc`.
package protocol UploadStaging: Sendable {
    /// A new file to receive the bytes of upload `session` from offset `start` into.
    func newPart(of session: String, at start: Int) throws -> UploadPartFile
    /// Makes `file`'s bytes durable and returns the part they are, named with their SHA-256
    /// (``UploadPart/name(session:start:sha256:)``).
    func keep(_ file: UploadPartFile) async throws -> UploadPart
    /// Appends the bytes of `part` to `writer`, checked against the SHA-256 its name carries: a
    /// part whose bytes were damaged, cut short or lost since they were kept throws
    /// ``DamagedUploadPart`` (the writer then holds bytes that must not be published).
    func copy(_ part: UploadPart, into writer: BlobWriter) async throws
    /// Throws ``DamagedUploadPart`` unless `part`'s bytes are still those that were kept (`verify`).
    func check(_ part: UploadPart) async throws
    /// Removes the parts' bytes (what is already gone is no failure).
    func remove(_ parts: [UploadPart], of session: String) async
    /// Every part kept, by name, with when it was kept (for `gc`: parts no upload lists).
    func kept() async throws -> [(name: String, modified: Date)]
    /// Removes this host's own files of uploads (copies, bytes a request was receiving when it
    /// died) that are not the kept parts themselves: those older than `cutoff` of every upload
    /// but the `open` ones.
    func removeLocalLeftovers(before cutoff: Date, keeping open: Set<String>) async
}

/// Bytes of one part as they arrive: written to a file, never held in memory, and into a SHA-256.
/// Used by one request at a time. Its writes go to the page cache; ``UploadStaging/keep(_:)``
/// makes them durable.
package final class UploadPartFile: @unchecked Sendable {  // one request writes it, then hands it on
    package let url: URL
    package let start: Int
    package let name: String
    private let handle: FileHandle
    private var hasher = SHA256()
    package private(set) var length = 0

    /// A new file at `url` (which must not exist), for the part `name` from offset `start`.
    package init(url: URL, start: Int, name: String) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.url = url
        self.start = start
        self.name = name
    }

    package func write(_ bytes: some DataProtocol) throws {
        try handle.write(contentsOf: bytes)
        hasher.update(data: bytes)
        length += bytes.count
    }

    /// The SHA-256 of the bytes written so far.
    package var sha256: BlobHash { BlobHash(hasher.finalize()) }

    /// Flushes the bytes to disk and closes the file.
    package func synchronize() throws {
        try handle.synchronize()
        try handle.close()
    }

    /// Closes the file, its bytes kept.
    package func close() throws {
        try handle.close()
    }

    /// Closes the file and removes it: its bytes are not kept.
    package func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }
}

/// Parts as files in the store folder's `uploads/` (one folder per upload), which every host
/// sharing the folder reaches: received as `….receiving`, then kept by `fsync` of the file,
/// renamed to the part's name (which carries its SHA-256) and `fsync` of its folder.
package struct FolderUploadStaging: UploadStaging {
    package let folder: URL
    private let offload: Offload

    package init(root: URL, offload: Offload) throws {
        folder = root.appendingPathComponent("uploads")
        self.offload = offload
        try BlobStore.createPrivateFolder(folder)
    }

    package func newPart(of session: String, at start: Int) throws -> UploadPartFile {
        let sessionFolder = folder.appendingPathComponent(session)
        try BlobStore.createPrivateFolder(sessionFolder)
        let name = "\(session)/\(start)-\(UUID().uuidString.lowercased())\(UploadPart.receivingSuffix)"
        return try UploadPartFile(url: folder.appendingPathComponent(name), start: start, name: name)
    }

    package func keep(_ file: UploadPartFile) async throws -> UploadPart {
        let session = String(file.name.split(separator: "/").first ?? "")
        let name = UploadPart.name(session: session, start: file.start, sha256: file.sha256)
        let kept = folder.appendingPathComponent(name)
        try await offload.run(.writes) {
            try file.synchronize()
            try FileManager.default.moveItem(at: file.url, to: kept)
            try BlobStore.synchronizeFolder(kept.deletingLastPathComponent())
        }
        return UploadPart(start: file.start, length: file.length, name: name)
    }

    package func copy(_ part: UploadPart, into writer: BlobWriter) async throws {
        let url = folder.appendingPathComponent(part.name)
        try await offload.run(.writes) {
            do {
                try writer.write(contentsOf: url, length: part.length, sha256: part.sha256)
            } catch let error where StoreFault(error) == nil {
                throw DamagedUploadPart(part: part, reason: Self.reason(error))
            }
        }
    }

    package func check(_ part: UploadPart) async throws {
        let url = folder.appendingPathComponent(part.name)
        try await offload.run(.reads) {
            do {
                try FileChunks.check(url, length: part.length, sha256: part.sha256)
            } catch let error where StoreFault(error) == nil {
                throw DamagedUploadPart(part: part, reason: Self.reason(error))
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? PreviewError)?.message
            ?? ((error as? CocoaError)?.code == .fileReadNoSuchFile || (error as? POSIXError)?.code == .ENOENT
                ? "its file is gone" : "its file cannot be read (\(error))")
    }

    package func kept() async throws -> [(name: String, modified: Date)] {
        let folder = folder
        return try await offload.run(.reads) {
            var found: [(String, Date)] = []
            for session in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                let sessionFolder = folder.appendingPathComponent(session)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: sessionFolder.path)) ?? []
                where file.hasSuffix(UploadPart.keptSuffix) {
                    let modified =
                        (try? sessionFolder.appendingPathComponent(file).resourceValues(forKeys: [.contentModificationDateKey]))?
                        .contentModificationDate ?? .distantPast
                    found.append(("\(session)/\(file)", modified))
                }
            }
            return found
        }
    }

    /// Removes files requests were receiving into when they died.
    package func removeLocalLeftovers(before cutoff: Date, keeping open: Set<String>) async {
        let folder = folder
        _ = try? await offload.run(.writes) {
            for session in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !open.contains(session) {
                let sessionFolder = folder.appendingPathComponent(session)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: sessionFolder.path)) ?? []
                where file.hasSuffix(UploadPart.receivingSuffix) {
                    let url = sessionFolder.appendingPathComponent(file)
                    let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
                    if modified < cutoff { try? FileManager.default.removeItem(at: url) }
                }
                rmdir(sessionFolder.path)
            }
        }
    }

    package func remove(_ parts: [UploadPart], of session: String) async {
        let sessionFolder = folder.appendingPathComponent(session)
        _ = try? await offload.run(.writes) {
            for part in parts { try? FileManager.default.removeItem(at: sessionFolder.deletingLastPathComponent().appendingPathComponent(part.name)) }
            // The folder goes once empty (a part being received still holds it).
            rmdir(sessionFolder.path)
        }
    }
}

/// A staged part whose bytes are no longer those that were kept (damaged, cut short, or gone): the
/// upload is set back to where the part started, and its client sends the rest again.
package struct DamagedUploadPart: Error, Sendable, CustomStringConvertible {
    package let part: UploadPart
    package let reason: String

    package init(part: UploadPart, reason: String) {
        self.part = part
        self.reason = reason
    }

    package var description: String { "upload part \(part.name) (offset \(part.start), \(part.length) bytes): \(reason)" }
}
