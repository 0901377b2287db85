import Crypto
import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

/// The examples AWS publishes for Signature Version 4 with S3 ("Signature Calculations for the
/// Authorization Header"): their key, their requests of 24 May 2013, the signatures AWS computed.
@Suite(.blocking) struct SigV4SignerTests {
    static let signer = SigV4Signer(
        credentials: S3Credentials(
            accessKey: "AKIAIOSFODNN7EXAMPLE",
            secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), region: "us-east-1")
    static let date = Date(timeIntervalSince1970: 1_369_353_600)

    static func headers(_ extra: [String: String] = [:], payload: String = SigV4Signer.emptyPayloadHash) -> [String: String] {
        ["host": "examplebucket.s3.amazonaws.com", "x-amz-date": "20130524T000000Z", "x-amz-content-sha256": payload].merging(extra) { $1 }
    }

    @Test func getObjectWithARange() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt", headers: Self.headers(["range": "bytes=0-9"]),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: request, at: Self.date) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(
            Self.signer.authorization(for: request, at: Self.date) == """
                AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
                SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
                Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41
                """)
    }

    @Test func putObjectUnderAKeyThatNeedsEncoding() {
        let body = SHA256.hash(data: Data("Welcome to Amazon S3.".utf8)).hex
        #expect(body == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let path = SigV4Signer.encode("/test$file.text", keepingSlashes: true)
        #expect(path == "/test%24file.text")
        let request = SigV4Signer.Request(
            method: "PUT", path: path,
            headers: Self.headers(
                ["date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"], payload: body), payloadHash: body)
        #expect(Self.signer.signature(for: request, at: Self.date) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func bucketQueriesAreSortedAndEncoded() {
        let lifecycle = SigV4Signer.Request(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: Self.headers(),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: lifecycle, at: Self.date) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        // Given out of order: the canonical query sorts them.
        let list = SigV4Signer.Request(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: Self.headers(),
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(Self.signer.signature(for: list, at: Self.date) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func signingAddsTheDateAndPayloadHeaders() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt", headers: ["host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9"],
            payloadHash: SigV4Signer.emptyPayloadHash)
        let added = Self.signer.signedHeaders(for: request, at: Self.date)
        #expect(added["x-amz-date"] == "20130524T000000Z")
        #expect(added["x-amz-content-sha256"] == SigV4Signer.emptyPayloadHash)
        #expect(added["authorization"]?.hasSuffix("Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") == true)
        #expect(SigV4Signer.timestamp(Date(timeIntervalSince1970: 1_709_251_199)) == "20240229T235959Z", "a leap day")
    }

    @Test func addressesAndCredentials() throws {
        let aws = try S3Location("s3://media/docpreview")
        #expect(aws.endpoint.absoluteString == "https://s3.us-east-1.amazonaws.com" && aws.addressing == .virtual && aws.prefix == "docpreview/")
        #expect(aws.address(of: "docpreview/a b").url == "https://media.s3.us-east-1.amazonaws.com/docpreview/a%20b")
        let seaweed = try S3Location("s3://media/?endpoint=http://127.0.0.1:18333&region=eu-west-1")
        #expect(seaweed.addressing == .path && seaweed.prefix == "" && seaweed.region == "eu-west-1")
        #expect(seaweed.address(of: "k").url == "http://127.0.0.1:18333/media/k" && seaweed.address(of: "k").host == "127.0.0.1:18333")
        #expect(throws: S3Error.self) { try S3Location("s3://media/?secret=x") }
        #expect(throws: S3Error.self) { try S3Location("https://media/") }

        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.file(
            "credentials",
            Array("[default]\naws_access_key_id = A\naws_secret_access_key = B\n[other]\naws_access_key_id = C\naws_secret_access_key = D\n".utf8))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "other"])
                == S3Credentials(accessKey: "C", secretKey: "D"))
        #expect(
            try S3Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "E", "AWS_SECRET_ACCESS_KEY": "F", "AWS_SHARED_CREDENTIALS_FILE": file.path])
                == S3Credentials(accessKey: "E", secretKey: "F"))
        #expect(throws: S3Error.self) {
            try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": folder.url.appendingPathComponent("none").path])
        }
        #expect(XMLText.unescape("&#34;abc&#34; &amp; &#x27;") == "\"abc\" & '")
    }
}

/// What every blob driver does alike: the folder and the object store.
@Suite struct BlobStorageContractTests {
    static func open(_ blobs: TestBlobs, _ folder: TemporaryFolder) async throws -> Store {
        try await TestBackend.sqlite.open(root: folder.url.appendingPathComponent("store"), blobs: blobs).store
    }

    @Test(arguments: TestBlobs.available) func storesReadsAndDeduplicates(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let bytes = Array(try Data(contentsOf: Fixtures.sample("image.webp")))
        let first = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        let second = try await store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        #expect(first.hash == second.hash && first.hash == BlobHash.of(bytes) && first.size == bytes.count)
        #expect(await store.blobs.contains(first.hash))
        #expect(await !store.blobs.contains(BlobHash.of([1, 2, 3])))
        #expect(try await store.blobs.read(first.hash) == bytes)
        #expect(try await Array(Data(contentsOf: store.blobs.localFile(for: first.hash))) == bytes)
        #expect(try await store.blobs.verify(first.hash))
        let listed = try await store.blobs.allBlobs()
        #expect(listed.map(\.hash) == [first.hash] && listed.first?.size == bytes.count)
        #expect(abs(listed.first!.modified.timeIntervalSinceNow) < 120, "the time it was stored")
        #expect(try store.blobs.leftoverTemporaries().isEmpty)
    }

    @Test(arguments: TestBlobs.available) func anOriginalOverADerivativeMakesItAnOriginal(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let hash = try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .derivative)
        #expect(await store.blobs.role(of: hash) == .derivative)
        #expect(try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .derivative) == hash)
        #expect(await store.blobs.role(of: hash) == .derivative)
        #expect(try await store.blobs.put(bytes: Array("a preview, for now".utf8), as: .original) == hash)
        #expect(await store.blobs.role(of: hash) == .original)
        #expect(try await store.blobs.allBlobs().count == 1)
    }

    @Test(arguments: TestBlobs.available) func theQuarantineKeepsWhatGCTookForItsGrace(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let kept = try await store.blobs.put(bytes: Array("kept".utf8), as: .original)
        let hash = try await store.blobs.put(bytes: Array("taken away".utf8), as: .derivative)
        try await store.blobs.quarantine(hash)
        let (removed, stillKept) = (await !store.blobs.contains(hash), await store.blobs.contains(kept))
        #expect(removed && stillKept)
        #expect(try await store.blobs.quarantined().map(\.hash) == [hash])
        try await store.blobs.unquarantine(hash)
        let (back, role) = (await store.blobs.contains(hash), await store.blobs.role(of: hash))
        #expect(back && role == .derivative)
        #expect(try await store.blobs.quarantined().isEmpty)
        try await store.blobs.quarantine(hash)
        #expect(try await store.blobs.purgeQuarantine(before: Date().addingTimeInterval(-3600)) == (0, 0), "still in its grace period")
        let purged = try await store.blobs.purgeQuarantine(before: Date().addingTimeInterval(60))
        #expect(purged.blobs == 1 && purged.bytes == 10)
        let emptied = try await store.blobs.quarantined().isEmpty
        let gone = await !store.blobs.contains(hash)
        #expect(emptied && gone)
        try await store.blobs.remove(kept)
        #expect(try await store.blobs.allBlobs().isEmpty)
    }

    @Test(arguments: TestBlobs.available) func documentsLiveAndAreCollected(blobs: TestBlobs) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await Self.open(blobs, folder)
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let outcome = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "letter", filename: "letter.pdf"))
        #expect(outcome.status == .ok, "\(outcome.error?.message ?? "")")
        let page = try await pipeline.preview(source: #require(outcome.sha256), kind: .pdf, request: RenderRequest(page: 3, width: 300))
        #expect(!page.cached)
        #expect(try await store.verify().isClean)
        let orphan = try await store.blobs.put(bytes: Array("nobody refers to me".utf8), as: .derivative)
        let collected = try await store.collectGarbage(grace: 0, dryRun: false, logger: Logger(label: "test"))
        #expect(collected.blobs == 1 && collected.bytes == 19)
        #expect(await !store.blobs.contains(orphan))
        #expect(try await store.verify().isClean)
    }
}

/// What only the object store does: checksums the server checks, conditional writes, parts,
/// ranges, the local copies.
@Suite(.enabled(if: TestBlobs.available.contains(.s3)))
struct S3BlobStorageTests {
    /// A storage over a prefix of the test bucket, as one host sees it (its own local folder).
    static func host(
        _ prefix: String, _ folder: TemporaryFolder, name: String, secret: String? = nil,
        threshold: Int = 64 << 20, cacheBytes: Int = 1 << 30
    ) throws -> S3BlobStorage {
        var credentials = try S3Credentials.fromEnvironment()
        if let secret { credentials.secretKey = secret }
        let local = folder.url.appendingPathComponent(name)
        return try S3BlobStorage(
            location: S3Location(TestBlobs.address(prefix: prefix)), credentials: credentials, localFolder: local,
            cacheBytes: cacheBytes, lock: FileReferenceLock(file: folder.url.appendingPathComponent("reference.lock"), offload: .forTests),
            multipartThreshold: threshold, offload: .forTests, logger: Logger(label: "test"))
    }

    static func prefix() -> String { "test-\(UUID().uuidString.lowercased())" }

    /// Sample `name` stored by one host, and a second host on the same prefix that has no copy of it.
    static func storedByAnotherHost(_ name: String, _ folder: TemporaryFolder) async throws -> (bytes: [UInt8], hash: BlobHash, reader: S3BlobStorage)
    {
        let prefix = prefix()
        let bytes = Array(try Data(contentsOf: Fixtures.sample(name)))
        let hash = try await host(prefix, folder, name: "a").put(bytes: bytes, as: .original)
        return (bytes, hash, try host(prefix, folder, name: "b"))
    }

    @Test func listingsArePagedAndPurgesBatched() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let storage = try S3BlobStorage(
            location: S3Location(TestBlobs.address(prefix: Self.prefix())), credentials: S3Credentials.fromEnvironment(),
            localFolder: folder.url.appendingPathComponent("a"), cacheBytes: 1 << 20,
            lock: FileReferenceLock(file: folder.url.appendingPathComponent("lock"), offload: .forTests), multipartThreshold: 64 << 20,
            pageSize: 2, offload: .forTests, logger: Logger(label: "test"))
        var hashes: [BlobHash] = []
        for number in 0..<5 { hashes.append(try await storage.put(bytes: Array("blob \(number)".utf8), as: .derivative)) }
        let listings = storage.requests("GET")
        #expect(await Set(try storage.allBlobs().map(\.hash)) == Set(hashes))
        #expect(storage.requests("GET") == listings + 3, "five objects, two a page")
        for hash in hashes { try await storage.quarantine(hash) }
        #expect(try await storage.quarantined().count == 5)
        let posts = storage.requests("POST")
        #expect(try await storage.purgeQuarantine(before: Date().addingTimeInterval(60)) == (5, 30))
        #expect(storage.requests("POST") == posts + 2, "DeleteObjects of two keys, twice; the last one alone")
        let (noneQuarantined, noneStored) = (try await storage.quarantined().isEmpty, try await storage.allBlobs().isEmpty)
        #expect(noneQuarantined && noneStored)

        // An upload a killed writer started and never finished is abandoned once past the grace.
        let key = storage.key(of: BlobHash.of(Array("never finished".utf8)))
        _ = try await storage.client.send(.POST, key: key, query: [("uploads", "")], operation: "starting an upload")
        #expect(try await storage.unfinishedUploads().map(\.key) == [key])
        _ = try await storage.purgeQuarantine(before: Date().addingTimeInterval(-3600))
        #expect(try await storage.unfinishedUploads().count == 1, "still in its grace period")
        _ = try await storage.purgeQuarantine(before: Date().addingTimeInterval(60))
        #expect(try await storage.unfinishedUploads().isEmpty)
    }

    @Test func aWrongSecretIsSaidOnceAndClearly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let storage = try Self.host(Self.prefix(), folder, name: "a", secret: "not-the-secret")
        let error = try await #require(throws: S3Error.self) { try await storage.checkAccess() }
        #expect(error.code == "SignatureDoesNotMatch")
        #expect(error.fault == nil, "not an outage to wait out")
        #expect("\(error)".contains("AWS_SECRET_ACCESS_KEY"))
        #expect(storage.requests("GET") == 1, "never retried")
        await #expect(throws: S3Error.self) { try await storage.put(bytes: Array("x".utf8), as: .original) }
        #expect(storage.requests("PUT") == 1)
    }

    @Test func bytesThatDoNotMatchTheirChecksumAreRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let storage = try Self.host(Self.prefix(), folder, name: "a")
        let file = try folder.file("upload", Array("the bytes we send".utf8))
        let claimed = BlobHash.of(Array("the bytes we meant".utf8))
        // The key and checksum say one thing, the body another: the server must refuse it.
        let error = try await #require(throws: S3Error.self) { try await storage.publish(stagedFile: file, as: claimed, role: .original) }
        #expect(error.code == "BadDigest", "\(error)")
        #expect(await !storage.contains(claimed))
        #expect(try await storage.allBlobs().isEmpty)
    }

    @Test func twoHostsPuttingTheSameBlobAtOnceBothSucceedWithOneObject() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let prefix = Self.prefix()
        let hosts = [try Self.host(prefix, folder, name: "a"), try Self.host(prefix, folder, name: "b")]
        let rounds = 20
        let failures = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<(rounds * 2) {
                group.addTask {
                    let bytes = Array(String(repeating: "blob \(index / 2) ", count: 5000).utf8)
                    do {
                        _ = try await hosts[index % 2].put(bytes: bytes, as: .original)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let listed = try await hosts[0].allBlobs()
        #expect(listed.count == rounds)
        for blob in listed { await #expect(try hosts[1].verify(blob.hash)) }
    }

    @Test func largeBlobsGoUpInCheckedParts() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let prefix = Self.prefix()
        let writer = try Self.host(prefix, folder, name: "a", threshold: 5 << 20)
        let bytes = Array(try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 12 << 20))
        let hash = try await writer.put(bytes: bytes, as: .original)
        #expect(writer.requests("POST") == 2, "one upload started and completed")
        #expect(writer.requests("PUT") == 3, "three parts")
        let reader = try Self.host(prefix, folder, name: "b")
        #expect(try await reader.allBlobs().first?.size == bytes.count)
        #expect(try await reader.read(hash) == bytes)
        #expect(try await reader.verify(hash))
        #expect(try await writer.put(bytes: bytes, as: .original) == hash)
        #expect(writer.requests("POST") == 2, "stored already: no second upload")
    }

    @Test func aRangeIsOneRangedGet() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (bytes, hash, server) = try await Self.storedByAnotherHost("video-h264.mp4", folder)
        guard case let .remote(reader, size) = try await server.servingSource(for: hash, size: bytes.count), size == bytes.count else {
            Issue.record("a blob with no local copy is read from the store")
            return
        }
        var received: [UInt8] = []
        let stream = try await reader.open(100_000...199_999)
        while let chunk = try await stream.next() { received += chunk }
        #expect(received == Array(bytes[100_000...199_999]))
        #expect(server.requests("GET") == 1 && server.requests("HEAD") == 0)
        #expect(server.cacheCounts == (0, 0), "nothing downloaded whole")
    }

    @Test func concurrentReadersShareOneDownloadAndTheCopyIsChecked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (_, hash, reader) = try await Self.storedByAnotherHost("document-5-pages.pdf", folder)
        let paths = Locked<Set<String>>([])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { if let url = try? await reader.localFile(for: hash) { paths.withLock { _ = $0.insert(url.path) } } }
            }
        }
        #expect(paths.withLock { $0.count } == 1)
        #expect(reader.requests("GET") == 1 && reader.cacheCounts == (7, 1))
        // A copy whose bytes are not the blob's is never used.
        let other = BlobHash.of(Array("other".utf8))
        await #expect(throws: S3Error.self) { try await reader.cache.file(for: other) { try Data("not other".utf8).write(to: $0) } }
        #expect(await reader.cache.cached(other) == nil)
    }

    @Test func theCacheForgetsTheLeastRecentlyUsedFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = try BlobCache(folder: folder.url.appendingPathComponent("cache"), capacity: 250, minimumAge: 0, offload: .forTests)
        var hashes: [BlobHash] = []
        for index in 0..<3 {
            let bytes = Array(String(repeating: "\(index)", count: 100).utf8)
            hashes.append(BlobHash.of(bytes))
            _ = try await cache.file(for: hashes[index]) { try Data(bytes).write(to: $0) }
            if index == 1 { _ = await cache.cached(hashes[0]) }  // 0 used after 1
        }
        #expect(await cache.cached(hashes[1]) == nil, "the least recently used went")
        let (first, third) = (await cache.cached(hashes[0]), await cache.cached(hashes[2]))
        #expect(first != nil && third != nil && cache.bytes == 200)
        let reopened = try BlobCache(folder: folder.url.appendingPathComponent("cache"), capacity: 250, offload: .forTests)
        let kept = await reopened.cached(hashes[2])
        #expect(reopened.bytes == 200 && kept != nil, "copies survive a restart")
    }
}

/// The reference lock of hosts that share blobs in an object store: PostgreSQL's advisory lock.
@Suite(.blocking, .enabled(if: TestBackend.available.contains(.postgres)))
struct PostgresReferenceLockTests {
    @Test func writersShareItAndGCWaitsForThemAll() async throws {
        let database = try await #require(try TestBackend.postgres.freshDatabase())
        let hosts = [
            try await PostgresReferenceLock(url: database, logger: Logger(label: "a")),
            try await PostgresReferenceLock(url: database, logger: Logger(label: "b"))
        ]
        let events = Locked<[String]>([])
        let writers = (0..<2).map { index in
            Task {
                try? await hosts[index].whileHeld(exclusive: false) {
                    events.withLock { $0.append("writer \(index) in") }
                    try? await Task.sleep(for: .milliseconds(300))  // held while gc asks for the lock, so that gc has to wait (what is tested)
                    events.withLock { $0.append("writer \(index) out") }
                }
            }
        }
        // Both inside at once: the lock is shared.
        try await waitUntilAsync("both writers in") { events.withLock { $0.count { $0.hasSuffix(" in") } } == 2 }
        try await hosts[1].whileHeld(exclusive: true) { events.withLock { $0.append("gc in") } }
        for writer in writers { await writer.value }
        let order = events.withLock { $0 }
        #expect(order.prefix(2).allSatisfy { $0.hasSuffix(" in") })
        #expect(order.last == "gc in", "gc waited for both writers: \(order)")
        let late = Locked(false)
        try await hosts[0].whileHeld(exclusive: true) {
            Task { try? await hosts[1].whileHeld(exclusive: false) { late.withLock { $0 = true } } }
            try await Task.sleep(for: .milliseconds(300))
            let entered = late.withLock { $0 }
            #expect(!entered, "a writer waits while gc holds it")
        }
        try await waitUntilAsync("the writer to go on once gc is done") { late.withLock { $0 } }
    }
}
