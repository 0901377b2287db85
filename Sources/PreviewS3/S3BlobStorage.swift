import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
import PreviewDomain
import PreviewStore

/// Blobs in an S3-compatible object store (DESIGN §5, §11): `PREFIX/objects/sha256/ab/cd/abcd…`,
/// blobs `gc` removed under `PREFIX/quarantine/sha256/` until their grace period is over, pending
/// marks (empty objects) under `PREFIX/pending/sha256/`; a derivative's object carries the metadata
/// `x-amz-meta-role: derivative`.
///
/// Writes cannot tear and never overwrite: a put carries `x-amz-checksum-sha256` (the key is the
/// SHA-256 already, so the store checks our bytes against it and refuses others) and
/// `If-None-Match: *` (an object already there is kept, and a concurrent put of the same bytes is
/// success). Files above ``multipartThreshold`` go up in parts, each with its own checksum. Uploads
/// stream from the staged file, which then becomes the local copy.
///
/// The C libraries read local copies (``BlobCache``, `--blob-cache-size`); clients are sent
/// objects by byte range straight from the store (``servingSource(for:size:)``). Many hosts share a
/// bucket when they share the ``ReferenceLock`` too (PostgreSQL's, beside the index).
///
/// Its file work (hashing, reading staged files and copies) runs on the lanes of its ``Offload``.
package final class S3BlobStorage: BlobStorage {
    let client: S3Client
    let cache: BlobCache
    let offload: Offload
    let lock: any ReferenceLock
    private let logger: Logger
    package let stagingFolder: URL
    /// Files larger than this are uploaded in parts of this size.
    package let multipartThreshold: Int
    /// Objects asked for per listing page (S3's most is 1,000), and keys per batched delete.
    let pageSize: Int

    /// Blobs in `location`, signed with `credentials`; writes staged and copies cached under `localFolder`
    /// (`tmp/`, `cache/`), the copies kept to `cacheBytes`.
    package convenience init(
        location: S3Location, credentials: S3Credentials, localFolder: URL, cacheBytes: Int, lock: any ReferenceLock,
        multipartThreshold: Int = 64 << 20, offload: Offload, logger: Logger
    ) throws {
        try self.init(
            location: location, credentials: credentials, localFolder: localFolder, cacheBytes: cacheBytes, lock: lock,
            multipartThreshold: multipartThreshold, pageSize: 1000, offload: offload, logger: logger)
    }

    init(
        location: S3Location, credentials: S3Credentials, localFolder: URL, cacheBytes: Int, lock: any ReferenceLock,
        multipartThreshold: Int, pageSize: Int, offload: Offload, logger: Logger
    ) throws {
        self.pageSize = pageSize
        self.offload = offload
        client = try S3Client(location: location, credentials: credentials, offload: offload, logger: logger)
        stagingFolder = localFolder.appendingPathComponent("tmp")
        for folder in [localFolder, stagingFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        cache = try BlobCache(folder: localFolder.appendingPathComponent("cache"), capacity: cacheBytes, offload: offload)
        self.lock = lock
        self.multipartThreshold = max(5 << 20, multipartThreshold)
        self.logger = logger
    }

    package var location: S3Location { client.location }
    package var isRemote: Bool { true }

    /// Reads served from the local copies, and reads that had to fetch one, since this storage was opened.
    package var cacheCounts: (hits: Int, misses: Int) { (cache.hits.load(ordering: .relaxed), cache.misses.load(ordering: .relaxed)) }

    /// Requests of `method` sent to the store since this storage was opened.
    package func requests(_ method: String) -> Int { client.requests(method) }

    /// Checks that the bucket answers to these credentials: a wrong secret or a missing bucket is
    /// said at start, not at the first upload.
    package func checkAccess() async throws {
        _ = try await client.send(
            .GET, key: nil, query: [("list-type", "2"), ("max-keys", "1"), ("prefix", location.prefix)],
            operation: "listing the bucket \(location.bucket)")
    }

    func key(of hash: BlobHash) -> String {
        "\(location.prefix)objects/sha256/\(hash.fannedOut)"
    }

    /// The prefixes of quarantined copies and of pending marks, each object named by its blob's hash.
    var quarantinePrefix: String { "\(location.prefix)quarantine/sha256/" }
    var pendingPrefix: String { "\(location.prefix)pending/sha256/" }

    func quarantineKey(of hash: BlobHash) -> String { quarantinePrefix + hash.hex }
    func pendingKey(of hash: BlobHash) -> String { pendingPrefix + hash.hex }

    // MARK: Writes

    package func publish(stagedFile: URL, as hash: BlobHash, role: BlobRole) async throws {
        var info = stat()
        guard stat(stagedFile.path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let size = Int(info.st_size)
        func store(replacing: Bool) async throws -> Bool {
            size > multipartThreshold
                ? try await putInParts(stagedFile, size: size, as: hash, role: role, replacing: replacing)
                : try await put(stagedFile, size: size, as: hash, role: role, replacing: replacing)
        }
        var created = try await store(replacing: false)
        if !created, try await storedETag(of: hash) != expectedETag(of: stagedFile, size: size) {
            // The object under this name holds other bytes than its name says: damaged behind our back.
            // These bytes hash to the name, so they replace it.
            logger.error("a damaged object was replaced by an upload of its bytes", metadata: ["preview.sha256": "\(hash)"])
            ServiceMetrics.damagedBlobs(kind: "object", problem: "repaired")
            created = try await store(replacing: true)
        }
        if !created, role == .original, await self.role(of: hash) == .derivative {
            // Stored before as a derivative: the same bytes are now a document's, kept as an original.
            try await copy(from: key(of: hash), to: key(of: hash), metadata: [:], operation: "marking \(hash) an original")
        }
        try cache.adopt(stagedFile, as: hash)
    }

    /// One PUT that the store checks against `hash` and refuses over an existing object (unless
    /// `replacing`). Returns false when the object was there already. The ETag the store answers
    /// must be the MD5 of what was sent: a store that ignores the checksum and kept other bytes has
    /// failed the write, and its object is removed.
    private func put(_ file: URL, size: Int, as hash: BlobHash, role: BlobRole, replacing: Bool) async throws -> Bool {
        var headers = ["x-amz-checksum-sha256": Data(hash.bytes).base64EncodedString(), "content-type": "application/octet-stream"]
        if !replacing { headers["if-none-match"] = "*" }
        if role == .derivative { headers["x-amz-meta-role"] = role.rawValue }
        let answer = try await client.send(
            .PUT, key: key(of: hash), headers: headers,
            body: .file(path: file.path, offset: 0, length: size, sha256: hash.hex),
            accepting: [200, 409, 412], operation: "storing blob \(hash)")
        // 409: a put of the same key is in flight elsewhere; when it is not there after all, ours goes again.
        if answer.status == 409, try await !exists(key(of: hash)) {
            return try await put(file, size: size, as: hash, role: role, replacing: replacing)
        }
        if answer.status == 200 { try await checkStored(answer.headers.first(name: "etag"), try expectedETag(of: file, size: size), hash) }
        return answer.status == 200
    }

    /// Fails the write of `hash` whose answer's ETag is not `expected`, removing what the store kept.
    func checkStored(_ etag: String?, _ expected: String, _ hash: BlobHash) async throws {
        guard let etag, etag != expected else { return }
        _ = try? await client.send(.DELETE, key: key(of: hash), accepting: [200, 204, 404], operation: "removing a misstored blob \(hash)")
        throw S3Error.damaged("The object store kept other bytes than were sent for blob \(hash) (ETag \(etag), sent \(expected)).")
    }

    // MARK: Reads

    func exists(_ key: String) async throws -> Bool {
        try await client.send(.HEAD, key: key, accepting: [200, 404], operation: "looking for \(key)").status == 200
    }

    package func contains(_ hash: BlobHash) async -> Bool {
        if await cache.cached(hash) != nil { return true }
        do {
            return try await exists(key(of: hash))
        } catch {
            logger.warning("the object store did not say whether a blob is there", metadata: ["preview.sha256": "\(hash)", "error": "\(error)"])
            return false
        }
    }

    /// From the object's metadata; an original when it cannot be told (which errs on the side of keeping).
    package func role(of hash: BlobHash) async -> BlobRole {
        guard let head = try? await client.send(.HEAD, key: key(of: hash), operation: "reading the role of \(hash)"),
            head.headers.first(name: "x-amz-meta-role") == BlobRole.derivative.rawValue
        else { return .original }
        return .derivative
    }

    package func localFile(for hash: BlobHash) async throws -> URL {
        do {
            return try await cache.file(for: hash) { destination in
                _ = try await client.download(key: key(of: hash), to: destination.path, operation: "reading blob \(hash)")
            }
        } catch let error as S3Error where error.isMissing {
            throw BlobMissing(hash.hex)
        }
    }

    package func read(_ hash: BlobHash) async throws -> [UInt8] {
        let file = try await localFile(for: hash)
        return try await offload.run(.reads) { Array(try Data(contentsOf: file)) }
    }

    package func checkLocalCopies() async -> [BlobHash] { await cache.checkAll() }

    /// Downloads the object (not into the cache) and hashes it.
    package func verify(_ hash: BlobHash) async throws -> Bool {
        let temporary = stagingFolder.appendingPathComponent("verify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        _ = try await client.download(key: key(of: hash), to: temporary.path, operation: "verifying blob \(hash)")
        guard try await offload.run(.reads, { try SourceFile(temporary, followLinks: false).contentHash() }) == hash else {
            cache.forget(hash)
            return false
        }
        return true
    }

    /// The local copy when there is one, else the object read by range (a HEAD first when `size` is not known).
    package func servingSource(for hash: BlobHash, size: Int?) async throws -> BlobServingSource {
        if let file = await cache.cached(hash) { return .file(file) }
        let key = key(of: hash)
        let reader = ObjectRangeReader(client: client, key: key)
        if let size { return .remote(reader, size: size) }
        return .remote(reader, size: try await reader.storedSize())
    }
}
