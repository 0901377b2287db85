import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
import PreviewDomain
import PreviewStore

/// How a blob's bytes reach the bucket checked: a single PUT or a multipart upload whose parts and
/// whole object are held to their digests (ETags), copies and existence checks.
extension S3BlobStorage {
    /// The ETag S3 gives an object of the `size` bytes of `file` as this storage writes it: the MD5
    /// of the bytes in one PUT, or past ``multipartThreshold`` the MD5 of its parts' MD5s and `-N`.
    func expectedETag(of file: URL, size: Int) async throws -> String {
        let partSize = multipartThreshold
        return try await offload.run(.reads) {
            guard size > partSize else { return "\"\(try Self.md5(of: file, offset: 0, length: size).hex)\"" }
            var parts: [[UInt8]] = []
            for offset in stride(from: 0, to: size, by: partSize) {
                parts.append(try Self.md5(of: file, offset: offset, length: min(partSize, size - offset)))
            }
            return Self.multipartETag(parts)
        }
    }

    /// The ETag of an object completed from parts whose MD5s are `parts`.
    static func multipartETag(_ parts: [[UInt8]]) -> String {
        "\"\(Insecure.MD5.hash(data: parts.flatMap { $0 }).hex)-\(parts.count)\""
    }

    /// The ETag of the object of `hash`, as the store says.
    func storedETag(of hash: BlobHash) async throws -> String? {
        try await client.send(.HEAD, key: key(of: hash), accepting: [200, 404], operation: "reading the ETag of \(hash)").headers.first(name: "etag")
    }

    /// A multipart upload in parts of `multipartThreshold` bytes, each checked by its SHA-256;
    /// abandoned (its parts deleted) on any failure. The completed object's ETag must be the one its
    /// parts' MD5s make (each part read once for both digests).
    func putInParts(_ file: URL, size: Int, as hash: BlobHash, role: BlobRole, replacing: Bool) async throws -> Bool {
        let key = key(of: hash)
        if !replacing, try await exists(key) { return false }
        var headers = ["x-amz-checksum-algorithm": "SHA256", "content-type": "application/octet-stream"]
        if role == .derivative { headers["x-amz-meta-role"] = role.rawValue }
        let started = try await client.send(.POST, key: key, query: [("uploads", "")], headers: headers, operation: "starting an upload of \(hash)")
        guard let upload = XMLText(started.body).first("UploadId") else {
            throw S3Error.refused(status: started.status, code: "NoUploadId", message: "", operation: "starting an upload of \(hash)")
        }
        do {
            var parts: [(number: Int, etag: String, checksum: String)] = []
            var md5s: [[UInt8]] = []
            var offset = 0
            while offset < size {
                let length = min(multipartThreshold, size - offset)
                // Each part is read once, for the store's checksum and for the ETag it will make.
                let (digest, md5) = try await offload.run(.reads) { [offset] in
                    var (sha256, md5) = (SHA256(), Insecure.MD5())
                    try Self.read(file, offset: offset, length: length) { chunk in
                        sha256.update(data: chunk)
                        md5.update(data: chunk)
                    }
                    return (Array(sha256.finalize()), Array(md5.finalize()))
                }
                md5s.append(md5)
                let checksum = Data(digest).base64EncodedString()
                let number = parts.count + 1
                let answer = try await client.send(
                    .PUT, key: key, query: [("partNumber", "\(number)"), ("uploadId", upload)],
                    headers: ["x-amz-checksum-sha256": checksum],
                    body: .file(path: file.path, offset: offset, length: length, sha256: digest.hex),
                    operation: "storing part \(number) of \(hash)")
                parts.append((number, answer.headers.first(name: "etag") ?? "", checksum))
                offset += length
            }
            let list = parts.map {
                "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escape($0.etag))</ETag>"
                    + "<ChecksumSHA256>\($0.checksum)</ChecksumSHA256></Part>"
            }.joined()
            let operation = "completing the upload of \(hash)"
            let completed = try await S3Client.checked(
                client.send(
                    .POST, key: key, query: [("uploadId", upload)],
                    body: .bytes(Array("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8)),
                    operation: operation), operation: operation)
            try await checkStored(XMLText(completed.body).first("ETag"), Self.multipartETag(md5s), hash)
            return true
        } catch {
            _ = try? await client.send(
                .DELETE, key: key, query: [("uploadId", upload)], accepting: [200, 204, 404],
                operation: "abandoning the upload of \(hash)")
            throw error
        }
    }

    /// The MD5 (an object's ETag) of `length` bytes of `file` from `offset`.
    static func md5(of file: URL, offset: Int, length: Int) throws -> [UInt8] {
        var md5 = Insecure.MD5()
        try read(file, offset: offset, length: length) { md5.update(data: $0) }
        return Array(md5.finalize())
    }

    /// Hands `length` bytes of `file` from `offset` to `body`, a chunk at a time.
    static func read(_ file: URL, offset: Int, length: Int, _ body: ([UInt8]) -> Void) throws {
        let source = try SourceFile(file, followLinks: false)
        var position = offset
        while position < offset + length {
            let chunk = source.read(at: position, count: min(S3Client.chunkBytes, offset + length - position))
            guard !chunk.isEmpty else { throw POSIXError(.EIO) }
            body(chunk)
            position += chunk.count
        }
    }

    /// A server-side copy; `metadata` nil keeps the source's, else replaces it.
    func copy(from source: String, to destination: String, metadata: [String: String]?, operation: String) async throws {
        var headers = ["x-amz-copy-source": "/\(location.bucket)/\(SigV4Signer.encode(source, keepingSlashes: true))"]
        headers["x-amz-metadata-directive"] = metadata == nil ? "COPY" : "REPLACE"
        for (name, value) in metadata ?? [:] { headers["x-amz-meta-\(name)"] = value }
        _ = try await S3Client.checked(client.send(.PUT, key: destination, headers: headers, operation: operation), operation: operation)
    }
}
