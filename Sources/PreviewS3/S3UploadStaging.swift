import Crypto
import Foundation
import NIOCore
import PreviewCore
import PreviewDomain
import PreviewStore

/// Parts of uploads in progress as objects under `PREFIX/staging/uploads/` in the blobs' bucket,
/// which every host reaches: a part is received into a local file, then kept by a PUT the store
/// checks (`x-amz-checksum-sha256`, and the ETag against the bytes' MD5), its name carrying its
/// SHA-256. The local file stays as a copy for putting the upload together on this host, used
/// only when its hash is the name's; elsewhere (or damaged) the part is fetched from the bucket.
package struct S3UploadStaging: UploadStaging {
    private let storage: S3BlobStorage
    private let localFolder: URL
    private let offload: Offload

    /// Parts of `storage`'s bucket, received and copied under `root/uploads/`.
    package init(storage: S3BlobStorage, root: URL, offload: Offload) throws {
        self.storage = storage
        localFolder = root.appendingPathComponent("uploads")
        self.offload = offload
        try FileManager.default.createDirectory(at: localFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private var prefix: String { "\(storage.location.prefix)staging/uploads/" }

    package func newPart(of session: String, at start: Int) throws -> UploadPartFile {
        let folder = localFolder.appendingPathComponent(session)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let receiving = "\(session)/\(start)-\(UUID().uuidString.lowercased())\(UploadPart.receivingSuffix)"
        return try UploadPartFile(url: localFolder.appendingPathComponent(receiving), start: start, name: receiving)
    }

    package func keep(_ file: UploadPartFile) async throws -> UploadPart {
        try file.close()
        let (url, length) = (file.url, file.length)
        let (sha256, md5) = try await offload.run(.reads) { try Self.digests(of: url, length: length) }
        let session = String(file.name.split(separator: "/").first ?? "")
        let name = UploadPart.name(session: session, start: file.start, sha256: sha256)
        let answer = try await storage.client.send(
            .PUT, key: prefix + name,
            headers: [
                "x-amz-checksum-sha256": Data(sha256.bytes).base64EncodedString(),
                "content-type": "application/octet-stream"
            ],
            body: .file(path: url.path, offset: 0, length: length, sha256: sha256.hex),
            deadline: Self.keepingDeadline(length), operation: "staging part \(name)")
        if let etag = answer.headers.first(name: "etag"), etag != "\"\(md5.hex)\"" {
            try? await storage.delete([prefix + name])
            throw S3Error.damaged("The object store kept other bytes than were sent for upload part \(name).")
        }
        // The local file becomes this host's copy, under the part's name.
        let copy = localFolder.appendingPathComponent(name)
        try? FileManager.default.moveItem(at: url, to: copy)
        return UploadPart(start: file.start, length: length, name: name)
    }

    package func copy(_ part: UploadPart, into writer: BlobWriter) async throws {
        let local = try await intactCopy(of: part)
        try await offload.run(.writes) {
            do {
                try writer.write(contentsOf: local, length: part.length, sha256: part.sha256)
            } catch let error where StoreFault(error) == nil {
                throw DamagedUploadPart(part: part, reason: "this host's copy changed while it was read (\(error))")
            }
        }
    }

    package func check(_ part: UploadPart) async throws {
        _ = try await intactCopy(of: part)
    }

    /// This host's copy of `part`, fetched from the bucket unless the copy there is whole and
    /// its hash is the part's; a part the bucket no longer has, or holds other bytes of, is a
    /// ``DamagedUploadPart``. An unreachable bucket is the store's fault, thrown as it is.
    private func intactCopy(of part: UploadPart) async throws -> URL {
        guard let expected = part.sha256 else { throw DamagedUploadPart(part: part, reason: "its name carries no SHA-256") }
        let local = localFolder.appendingPathComponent(part.name)
        let intact = try await offload.run(.reads) {
            FileManager.default.fileExists(atPath: local.path) && (try? Self.digests(of: local, length: part.length).sha256) == expected
        }
        if intact { return local }
        try? FileManager.default.removeItem(at: local)
        let fetching = local.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + ".fetching")
        try FileManager.default.createDirectory(
            at: fetching.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        do {
            _ = try await storage.client.download(key: prefix + part.name, to: fetching.path, operation: "reading upload part \(part.name)")
        } catch let error as S3Error where error.isMissing {
            throw DamagedUploadPart(part: part, reason: "the object store no longer has it")
        }
        let fetched = try? await offload.run(.reads) { try Self.digests(of: fetching, length: part.length).sha256 }
        guard fetched == expected else {
            try? FileManager.default.removeItem(at: fetching)
            throw DamagedUploadPart(part: part, reason: "the object store holds other bytes than were kept")
        }
        try FileManager.default.moveItem(at: fetching, to: local)
        return local
    }

    package func remove(_ parts: [UploadPart], of session: String) async {
        try? await storage.delete(parts.map { prefix + $0.name })
        let folder = localFolder.appendingPathComponent(session)
        _ = try? await offload.run(.writes) {
            for part in parts { try? FileManager.default.removeItem(at: self.localFolder.appendingPathComponent(part.name)) }
            rmdir(folder.path)
        }
    }

    package func kept() async throws -> [(name: String, modified: Date)] {
        try await storage.listKeys(prefix: prefix).map { (String($0.key.dropFirst(prefix.count)), $0.modified) }
    }

    package func removeLocalLeftovers(before cutoff: Date, keeping open: Set<String>) async {
        let folder = localFolder
        _ = try? await offload.run(.writes) {
            for session in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !open.contains(session) {
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

    /// How long keeping a part of `length` bytes may take: 10 s and a second per MiB. An object
    /// store that stopped answering is then an outage the append is answered with (`503`), within
    /// the connection's idle time, and a put it finishes later is never counted: the offset moves
    /// only by an append the index records.
    static func keepingDeadline(_ length: Int) -> TimeAmount { .seconds(10 + Int64(length >> 20)) }

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
