import Crypto
import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPipeline
import PreviewPostgres
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

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
