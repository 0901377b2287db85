import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import PreviewCore
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
public final class S3BlobStorage: BlobStorage {
    let client: S3Client
    let cache: BlobCache
    private let offload: Offload
    private let lock: any ReferenceLock
    private let logger: Logger
    public let stagingFolder: URL
    /// Files larger than this are uploaded in parts of this size.
    public let multipartThreshold: Int
    /// Objects asked for per listing page (S3's most is 1,000), and keys per batched delete.
    let pageSize: Int

    /// Blobs in `location`, signed with `credentials`; writes staged and copies cached under `localFolder`
    /// (`tmp/`, `cache/`), the copies kept to `cacheBytes`.
    public convenience init(location: S3Location, credentials: S3Credentials, localFolder: URL, cacheBytes: Int, lock: any ReferenceLock,
                multipartThreshold: Int = 64 << 20, offload: Offload, logger: Logger) throws {
        try self.init(location: location, credentials: credentials, localFolder: localFolder, cacheBytes: cacheBytes, lock: lock,
                      multipartThreshold: multipartThreshold, pageSize: 1000, offload: offload, logger: logger)
    }

    init(location: S3Location, credentials: S3Credentials, localFolder: URL, cacheBytes: Int, lock: any ReferenceLock,
         multipartThreshold: Int, pageSize: Int, offload: Offload, logger: Logger) throws {
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

    public var location: S3Location { client.location }
    public var isRemote: Bool { true }

    /// Reads served from the local copies, and reads that had to fetch one, since this storage was opened.
    public var cacheCounts: (hits: Int, misses: Int) { (cache.hits.load(ordering: .relaxed), cache.misses.load(ordering: .relaxed)) }

    /// Requests of `method` sent to the store since this storage was opened.
    public func requests(_ method: String) -> Int { client.requests(method) }

    /// Checks that the bucket answers to these credentials: a wrong secret or a missing bucket is
    /// said at start, not at the first upload.
    public func checkAccess() async throws {
        _ = try await client.send(.GET, key: nil, query: [("list-type", "2"), ("max-keys", "1"), ("prefix", location.prefix)],
                            operation: "listing the bucket \(location.bucket)")
    }

    func key(of hash: BlobHash) -> String {
        "\(location.prefix)objects/sha256/\(hash.fannedOut)"
    }

    /// The prefixes of quarantined copies and of pending marks, each object named by its blob's hash.
    private var quarantinePrefix: String { "\(location.prefix)quarantine/sha256/" }
    private var pendingPrefix: String { "\(location.prefix)pending/sha256/" }

    func quarantineKey(of hash: BlobHash) -> String { quarantinePrefix + hash.hex }
    func pendingKey(of hash: BlobHash) -> String { pendingPrefix + hash.hex }

    // MARK: Writes

    public func publish(stagedFile: URL, as hash: BlobHash, role: BlobRole) async throws {
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
        let answer = try await client.send(.PUT, key: key(of: hash), headers: headers,
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
    private func checkStored(_ etag: String?, _ expected: String, _ hash: BlobHash) async throws {
        guard let etag, etag != expected else { return }
        _ = try? await client.send(.DELETE, key: key(of: hash), accepting: [200, 204, 404], operation: "removing a misstored blob \(hash)")
        throw S3Error.damaged("The object store kept other bytes than were sent for blob \(hash) (ETag \(etag), sent \(expected)).")
    }

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
    private static func multipartETag(_ parts: [[UInt8]]) -> String {
        "\"\(Insecure.MD5.hash(data: parts.flatMap { $0 }).hex)-\(parts.count)\""
    }

    /// The ETag of the object of `hash`, as the store says.
    private func storedETag(of hash: BlobHash) async throws -> String? {
        try await client.send(.HEAD, key: key(of: hash), accepting: [200, 404], operation: "reading the ETag of \(hash)").headers.first(name: "etag")
    }

    /// A multipart upload in parts of `multipartThreshold` bytes, each checked by its SHA-256;
    /// abandoned (its parts deleted) on any failure. The completed object's ETag must be the one its
    /// parts' MD5s make (each part read once for both digests).
    private func putInParts(_ file: URL, size: Int, as hash: BlobHash, role: BlobRole, replacing: Bool) async throws -> Bool {
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
                let answer = try await client.send(.PUT, key: key, query: [("partNumber", "\(number)"), ("uploadId", upload)],
                                             headers: ["x-amz-checksum-sha256": checksum],
                                             body: .file(path: file.path, offset: offset, length: length, sha256: digest.hex),
                                             operation: "storing part \(number) of \(hash)")
                parts.append((number, answer.headers.first(name: "etag") ?? "", checksum))
                offset += length
            }
            let list = parts.map {
                "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escape($0.etag))</ETag><ChecksumSHA256>\($0.checksum)</ChecksumSHA256></Part>"
            }.joined()
            let operation = "completing the upload of \(hash)"
            let completed = try await S3Client.checked(client.send(.POST, key: key, query: [("uploadId", upload)],
                                                             body: .bytes(Array("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8)),
                                                             operation: operation), operation: operation)
            try await checkStored(XMLText(completed.body).first("ETag"), Self.multipartETag(md5s), hash)
            return true
        } catch {
            _ = try? await client.send(.DELETE, key: key, query: [("uploadId", upload)], accepting: [200, 204, 404],
                                 operation: "abandoning the upload of \(hash)")
            throw error
        }
    }

    /// The MD5 (an object's ETag) of `length` bytes of `file` from `offset`.
    private static func md5(of file: URL, offset: Int, length: Int) throws -> [UInt8] {
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
    private func copy(from source: String, to destination: String, metadata: [String: String]?, operation: String) async throws {
        var headers = ["x-amz-copy-source": "/\(location.bucket)/\(SigV4Signer.encode(source, keepingSlashes: true))"]
        headers["x-amz-metadata-directive"] = metadata == nil ? "COPY" : "REPLACE"
        for (name, value) in metadata ?? [:] { headers["x-amz-meta-\(name)"] = value }
        _ = try await S3Client.checked(client.send(.PUT, key: destination, headers: headers, operation: operation), operation: operation)
    }

    // MARK: Reads

    private func exists(_ key: String) async throws -> Bool {
        try await client.send(.HEAD, key: key, accepting: [200, 404], operation: "looking for \(key)").status == 200
    }

    public func contains(_ hash: BlobHash) async -> Bool {
        if await cache.cached(hash) != nil { return true }
        do {
            return try await exists(key(of: hash))
        } catch {
            logger.warning("the object store did not say whether a blob is there", metadata: ["preview.sha256": "\(hash)", "error": "\(error)"])
            return false
        }
    }

    /// From the object's metadata; an original when it cannot be told (which errs on the side of keeping).
    public func role(of hash: BlobHash) async -> BlobRole {
        guard let head = try? await client.send(.HEAD, key: key(of: hash), operation: "reading the role of \(hash)"),
              head.headers.first(name: "x-amz-meta-role") == BlobRole.derivative.rawValue else { return .original }
        return .derivative
    }

    public func localFile(for hash: BlobHash) async throws -> URL {
        do {
            return try await cache.file(for: hash) { destination in
                _ = try await client.download(key: key(of: hash), to: destination.path, operation: "reading blob \(hash)")
            }
        } catch let error as S3Error where error.isMissing {
            throw BlobMissing(hash.hex)
        }
    }

    public func read(_ hash: BlobHash) async throws -> [UInt8] {
        let file = try await localFile(for: hash)
        return try await offload.run(.reads) { Array(try Data(contentsOf: file)) }
    }

    public func checkLocalCopies() async -> [BlobHash] { await cache.checkAll() }

    /// Downloads the object (not into the cache) and hashes it.
    public func verify(_ hash: BlobHash) async throws -> Bool {
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
    public func servingSource(for hash: BlobHash, size: Int?) async throws -> BlobServingSource {
        if let file = await cache.cached(hash) { return .file(file) }
        let key = key(of: hash)
        let reader = ObjectRangeReader(client: client, key: key)
        if let size { return .remote(reader, size: size) }
        return .remote(reader, size: try await reader.storedSize())
    }

    // MARK: Listing and removal

    public func allBlobs() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        try await list(prefix: "\(location.prefix)objects/sha256/")
    }

    public func remove(_ hash: BlobHash) async throws {
        cache.forget(hash)
        try await delete([key(of: hash)])
    }

    /// Copied under `quarantine/` (the copy's time starts its grace period), then deleted.
    public func quarantine(_ hash: BlobHash) async throws {
        cache.forget(hash)
        try await copy(from: key(of: hash), to: quarantineKey(of: hash), metadata: nil, operation: "quarantining blob \(hash)")
        try await delete([key(of: hash)])
    }

    public func markPending(_ hash: BlobHash) async throws {
        _ = try await client.send(.PUT, key: pendingKey(of: hash), operation: "marking blob \(hash) pending")
    }

    public func clearPending(_ hash: BlobHash) async throws {
        try await delete([pendingKey(of: hash)])
    }

    public func pendingMarks() async throws -> [(hash: BlobHash, modified: Date)] {
        try await list(prefix: pendingPrefix).map { ($0.hash, $0.modified) }
    }

    public func quarantined() async throws -> [(hash: BlobHash, size: Int, modified: Date)] {
        try await list(prefix: quarantinePrefix)
    }

    public func unquarantine(_ hash: BlobHash) async throws {
        if try await !exists(key(of: hash)) {
            try await copy(from: quarantineKey(of: hash), to: key(of: hash), metadata: nil, operation: "taking blob \(hash) back from the quarantine")
        }
        try await delete([quarantineKey(of: hash)])
    }

    /// Also abandons multipart uploads of blobs started before `cutoff` and never completed (a
    /// writer killed mid-upload), so their parts stop taking space.
    public func purgeQuarantine(before cutoff: Date) async throws -> (blobs: Int, bytes: Int) {
        let expired = try await quarantined().filter { $0.modified < cutoff }
        try await delete(expired.map { quarantineKey(of: $0.hash) })
        for upload in try await unfinishedUploads() where upload.started < cutoff {
            _ = try await client.send(.DELETE, key: upload.key, query: [("uploadId", upload.id)], accepting: [200, 204, 404],
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
            markers = page.first("IsTruncated") == "true"
                ? page.first("NextKeyMarker").map { ($0, page.first("NextUploadIdMarker") ?? "") } : nil
        } while markers != nil
        return found
    }

    public func whileReferencing<T>(exclusive: Bool, _ body: () async throws -> T) async throws -> T {
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
            let body = Array(("<Delete><Quiet>true</Quiet>" + batch.map { "<Object><Key>\(XMLText.escape($0))</Key></Object>" }.joined()
                + "</Delete>").utf8)
            let answer = try await client.send(.POST, key: nil, query: [("delete", "")],
                                         headers: ["content-md5": Data(Insecure.MD5.hash(data: body)).base64EncodedString()],
                                         body: .bytes(body), operation: "deleting \(batch.count) objects")
            let failures = XMLText(answer.body).all("Error").map(XMLText.init).filter { $0.first("Code") != "NoSuchKey" }
            if let failure = failures.first {
                throw S3Error.refused(status: answer.status, code: failure.first("Code") ?? "Error",
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

/// Byte ranges of one object, each one GET.
struct ObjectRangeReader: BlobRangeReader {
    let client: S3Client
    let key: String

    func open(_ range: ClosedRange<Int>) async throws -> BlobByteStream {
        let body: HTTPClientResponse.Body
        do {
            body = try await client.stream(key: key, range: range)
        } catch let error as S3Error where error.isMissing {
            throw missing
        }
        let chunks = Chunks(body.makeAsyncIterator())
        return BlobByteStream { try await chunks.next() }
    }

    /// The error of this object's absence: its blob's hash is the key's last part.
    private var missing: BlobMissing { BlobMissing(String(key.split(separator: "/").last ?? "")) }

    func storedSize() async throws -> Int {
        let head: S3Client.Response
        do {
            head = try await client.send(.HEAD, key: key, operation: "reading the size of \(key)")
        } catch let error as S3Error where error.isMissing {
            throw missing
        }
        guard let size = head.headers.first(name: "content-length").flatMap(Int.init) else {
            throw S3Error.refused(status: head.status, code: "NoContentLength", message: "", operation: "reading the size of \(key)")
        }
        return size
    }

    /// The response body's iterator, advanced by the one task that reads the stream.
    private final class Chunks: @unchecked Sendable {  // `iterator` is used by one task at a time, in turn
        private var iterator: HTTPClientResponse.Body.AsyncIterator

        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> [UInt8]? {
            try await iterator.next().map { Array($0.readableBytesView) }
        }
    }
}
