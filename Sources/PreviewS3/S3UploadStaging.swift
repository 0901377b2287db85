import Crypto
import Foundation
import PreviewCore
import PreviewStore

/// Parts of uploads in progress as objects under `PREFIX/staging/uploads/` in the blobs' bucket,
/// which every host reaches: a part is received into a local file, then kept by a PUT the store
/// checks (`x-amz-checksum-sha256`, and the ETag against the bytes' MD5), its name carrying its
/// SHA-256. The local file stays as a copy for putting the upload together on this host, used
/// only when its hash is the name's; elsewhere (or damaged) the part is fetched from the bucket.
public struct S3UploadStaging: UploadStaging {
    private let storage: S3BlobStorage
    private let localFolder: URL
    private let offload: Offload

    /// Parts of `storage`'s bucket, received and copied under `root/uploads/`.
    public init(storage: S3BlobStorage, root: URL, offload: Offload) throws {
        self.storage = storage
        localFolder = root.appendingPathComponent("uploads")
        self.offload = offload
        try FileManager.default.createDirectory(at: localFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private var prefix: String { "\(storage.location.prefix)staging/uploads/" }

    public func newPart(of session: String, at start: Int) throws -> UploadPartFile {
        let folder = localFolder.appendingPathComponent(session)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let receiving = "\(session)/\(start)-\(UUID().uuidString.lowercased()).receiving"
        return try UploadPartFile(url: localFolder.appendingPathComponent(receiving), start: start, name: receiving)
    }

    public func keep(_ file: UploadPartFile) async throws -> UploadPart {
        try file.close()
        let (url, length) = (file.url, file.length)
        let (sha256, md5) = try await offload.run(.hashes) { try Self.digests(of: url, length: length) }
        let session = String(file.name.split(separator: "/").first ?? "")
        let name = "\(session)/\(file.start)-\(sha256.hex).part"
        let answer = try await storage.client.send(.PUT, key: prefix + name,
                                                   headers: ["x-amz-checksum-sha256": Data(sha256.bytes).base64EncodedString(),
                                                             "content-type": "application/octet-stream"],
                                                   body: .file(path: url.path, offset: 0, length: length, sha256: sha256.hex),
                                                   operation: "staging part \(name)")
        if let etag = answer.headers.first(name: "etag"), etag != "\"\(md5.hex)\"" {
            try? await storage.delete([prefix + name])
            throw S3Error.damaged("The object store kept other bytes than were sent for upload part \(name).")
        }
        // The local file becomes this host's copy, under the part's name.
        let copy = localFolder.appendingPathComponent(name)
        try? FileManager.default.moveItem(at: url, to: copy)
        return UploadPart(start: file.start, length: length, name: name)
    }

    public func copy(_ part: UploadPart, into writer: BlobWriter) async throws {
        let local = localFolder.appendingPathComponent(part.name)
        let expected = String(part.name.split(separator: "-").last?.dropLast(".part".count) ?? "")
        let intact = try await offload.run(.hashes) {
            FileManager.default.fileExists(atPath: local.path) && (try? Self.digests(of: local, length: part.length).sha256.hex) == expected
        }
        if !intact {
            try? FileManager.default.removeItem(at: local)
            let fetching = local.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + ".fetching")
            try FileManager.default.createDirectory(at: fetching.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            _ = try await storage.client.download(key: prefix + part.name, to: fetching.path, operation: "reading upload part \(part.name)")
            let fetched = try await offload.run(.hashes) { try Self.digests(of: fetching, length: part.length).sha256.hex }
            guard fetched == expected else {
                try? FileManager.default.removeItem(at: fetching)
                throw PreviewError(.storeDamaged, "An upload's part in the object store is not the bytes that were kept.")
            }
            try FileManager.default.moveItem(at: fetching, to: local)
        }
        try await offload.run(.writes) { try writer.write(contentsOf: local, length: part.length) }
    }

    public func remove(_ parts: [UploadPart], of session: String) async {
        try? await storage.delete(parts.map { prefix + $0.name })
        let folder = localFolder.appendingPathComponent(session)
        _ = try? await offload.run(.writes) {
            for part in parts { try? FileManager.default.removeItem(at: self.localFolder.appendingPathComponent(part.name)) }
            rmdir(folder.path)
        }
    }

    public func kept() async throws -> [(name: String, modified: Date)] {
        try await storage.listKeys(prefix: prefix).map { (String($0.key.dropFirst(prefix.count)), $0.modified) }
    }

    public func removeLocalLeftovers(before cutoff: Date) async {
        let folder = localFolder
        _ = try? await offload.run(.writes) {
            for session in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                let sessionFolder = folder.appendingPathComponent(session)
                for file in (try? FileManager.default.contentsOfDirectory(atPath: sessionFolder.path)) ?? [] {
                    let url = sessionFolder.appendingPathComponent(file)
                    let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
                    if modified < cutoff { try? FileManager.default.removeItem(at: url) }
                }
                rmdir(sessionFolder.path)
            }
        }
    }

    /// The SHA-256 and MD5 of the first `length` bytes of the file at `url` (all of it, or it is short).
    private static func digests(of url: URL, length: Int) throws -> (sha256: BlobHash, md5: [UInt8]) {
        var (sha256, md5) = (SHA256(), Insecure.MD5())
        do {
            try S3BlobStorage.read(url, offset: 0, length: length) { chunk in
                sha256.update(data: chunk)
                md5.update(data: chunk)
            }
        } catch {
            throw PreviewError(.storeDamaged, "An upload part's file is shorter than its bytes.")
        }
        return (BlobHash(sha256.finalize()), Array(md5.finalize()))
    }
}
