import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
import PreviewDomain

/// Listing, removal, quarantine and pending marks: the objects `gc`, `verify` and the reference lock work on.
extension S3BlobStorage {
    package func allBlobs() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        try await list(prefix: "\(location.prefix)objects/sha256/")
    }

    package func remove(_ hash: BlobHash) async throws {
        cache.forget(hash)
        try await delete([key(of: hash)])
    }

    /// Copied under `quarantine/` (the copy's time starts its grace period), then deleted.
    package func quarantine(_ hash: BlobHash) async throws {
        cache.forget(hash)
        try await copy(from: key(of: hash), to: quarantineKey(of: hash), metadata: nil, operation: "quarantining blob \(hash)")
        try await delete([key(of: hash)])
    }

    package func markPending(_ hash: BlobHash) async throws {
        _ = try await client.send(.PUT, key: pendingKey(of: hash), operation: "marking blob \(hash) pending")
    }

    package func clearPending(_ hash: BlobHash) async throws {
        try await delete([pendingKey(of: hash)])
    }

    package func pendingMarks() async throws -> [(hash: BlobHash, modified: Date)] {
        try await list(prefix: pendingPrefix).map { ($0.hash, $0.modified) }
    }

    package func quarantined() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        try await list(prefix: quarantinePrefix)
    }

    package func unquarantine(_ hash: BlobHash) async throws {
        if try await !exists(key(of: hash)) {
            try await copy(from: quarantineKey(of: hash), to: key(of: hash), metadata: nil, operation: "taking blob \(hash) back from the quarantine")
        }
        try await delete([quarantineKey(of: hash)])
    }

    /// Also abandons multipart uploads of blobs started before `cutoff` and never completed (a
    /// writer killed mid-upload), so their parts stop taking space.
    package func purgeQuarantine(before cutoff: Date) async throws -> (blobs: Int, bytes: Int) {
        let expired = try await quarantined().filter { $0.modified < cutoff }
        try await delete(expired.map { quarantineKey(of: $0.hash) })
        for upload in try await unfinishedUploads() where upload.started < cutoff {
            _ = try await client.send(
                .DELETE, key: upload.key, query: [("uploadId", upload.id)], accepting: [200, 204, 404],
                operation: "abandoning an unfinished upload of \(upload.key)")
        }
        return (expired.count, expired.reduce(0) { $0 + $1.size })
    }

    /// Multipart uploads of blobs started and neither completed nor aborted, a page at a time.
    func unfinishedUploads() async throws -> [(key: String, id: String, started: Date)] {
        var found: [(String, String, Date)] = []
        var markers: (key: String, upload: String)?
        repeat {
            var query = [("uploads", ""), ("max-uploads", "\(pageSize)"), ("prefix", "\(location.prefix)objects/")]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.upload)] }
            let page = XMLText(try await client.send(.GET, key: nil, query: query, operation: "listing unfinished uploads").body)
            for upload in page.all("Upload").map(XMLText.init) {
                guard let key = upload.first("Key"), let id = upload.first("UploadId") else { continue }
                found.append((key, id, upload.first("Initiated").flatMap(Self.date) ?? .distantPast))
            }
            markers =
                page.first("IsTruncated") == "true"
                ? page.first("NextKeyMarker").map { ($0, page.first("NextUploadIdMarker") ?? "") } : nil
        } while markers != nil
        return found
    }

    package func whileReferencing<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T {
        try await lock.whileHeld(exclusive: exclusive, body)
    }

    /// Every object under `prefix` named by a hash.
    private func list(prefix: String) async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        try await listKeys(prefix: prefix).compactMap { object in
            BlobHash(hex: String(object.key.split(separator: "/").last ?? "")).map { ($0, object.size, object.modified) }
        }
    }

    /// Every object under `prefix`, a page of up to ``pageSize`` at a time.
    func listKeys(prefix: String) async throws -> [(key: String, size: Int, modified: Date)] {
        var found: [(String, Int, Date)] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("max-keys", "\(pageSize)"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let page = XMLText(try await client.send(.GET, key: nil, query: query, operation: "listing \(prefix)").body)
            for object in page.all("Contents") {
                let item = XMLText(object)
                guard let key = item.first("Key") else { continue }
                found.append((key, Int(item.first("Size") ?? "") ?? 0, item.first("LastModified").flatMap(Self.date) ?? .distantPast))
            }
            token = page.first("IsTruncated") == "true" ? page.first("NextContinuationToken") : nil
        } while token != nil
        return found
    }

    /// Deletes `keys`, up to ``pageSize`` in one request; a key that is not there counts as deleted.
    func delete(_ keys: [String]) async throws {
        for batch in stride(from: 0, to: keys.count, by: pageSize).map({ keys[$0..<min($0 + pageSize, keys.count)] }) {
            if batch.count == 1 {
                _ = try await client.send(.DELETE, key: batch.first!, accepting: [200, 204, 404], operation: "deleting \(batch.first!)")
                continue
            }
            let body = Array(
                ("<Delete><Quiet>true</Quiet>" + batch.map { "<Object><Key>\(XMLText.escape($0))</Key></Object>" }.joined()
                    + "</Delete>").utf8)
            let answer = try await client.send(
                .POST, key: nil, query: [("delete", "")],
                headers: ["content-md5": Data(Insecure.MD5.hash(data: body)).base64EncodedString()],
                body: .bytes(body), operation: "deleting \(batch.count) objects")
            let failures = XMLText(answer.body).all("Error").map(XMLText.init).filter { $0.first("Code") != "NoSuchKey" }
            if let failure = failures.first {
                throw S3Error.refused(
                    status: answer.status, code: failure.first("Code") ?? "Error",
                    message: "\(failures.count) of \(batch.count) objects were not deleted, first \(failure.first("Key") ?? "?")",
                    operation: "deleting objects")
            }
        }
    }

    private static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
