import Foundation
import Logging
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
@testable import PreviewServer
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Testing

/// Originals in an object store reach clients checked against their names, never a damaged or a
/// missing byte after a status: a small one, and any range, from its local copy, fetched in one GET
/// and checked first; a large one sent whole is checked as it streams.
@Suite(.enabled(if: TestBlobs.available.contains(.s3)))
struct ObjectStoreServingTests {
    @Test func aSmallOriginalIsOneGetCheckedBeforeItsStatusThenLocal() async throws {
        let folder = try TemporaryFolder()
        let harness = try await Harness(opened: try TestBackend.sqlite.open(root: folder.url, blobs: .s3), folder: folder)
        defer { harness.folder.remove() }
        let storage = try #require(harness.pipeline.store.blobs as? S3BlobStorage)
        let bytes = try Data(contentsOf: Fixtures.sample("video-h264.mp4"))
        let hash = BlobHash.of(Array(bytes))
        try await harness.test { client in
            let id = try await client.execute(uri: "/v1/documents?title=film&filename=film.mp4", method: .post, body: try sample("video-h264.mp4")) {
                try #require(try json($0)["document_id"] as? String)
            }
            // As another host sees it: no local copy.
            storage.cache.forget(hash)
            let before = (get: storage.requests("GET"), head: storage.requests("HEAD"))
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.range: "bytes=100000-149999"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100000-149999/\(bytes.count)")
                #expect(Data(buffer: response.body) == bytes[100_000...149_999])
            }
            #expect(storage.requests("GET") == before.get + 1 && storage.requests("HEAD") == before.head, "one GET, nothing else")
            #expect(storage.cacheCounts.misses == 1, "fetched into the checked cache")
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                #expect(response.status == .ok && Data(buffer: response.body) == bytes)
            }
            #expect(storage.requests("GET") == before.get + 1, "the second from the local copy")
        }
    }

    /// An object damaged or removed behind the store's back (no local copy) is an error object
    /// before any header, whole or by range, small or large; uploading the intact bytes again
    /// replaces the damaged object; a local copy damaged after it was checked is fetched again.
    @Test func damagedAndMissingObjectsAreRefusedBeforeAnyHeaderAndRepaired() async throws {
        let folder = try TemporaryFolder()
        let harness = try await Harness(opened: try TestBackend.sqlite.open(root: folder.url, blobs: .s3), folder: folder)
        defer { harness.folder.remove() }
        let storage = try #require(harness.pipeline.store.blobs as? S3BlobStorage)
        let payload = String(repeating: "0123456789abcdef", count: 6 << 16)  // 6 MB: past what is read whole
        let large = PDFWriter.document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
            "<< /Length \(payload.utf8.count) >>\nstream\n\(payload)\nendstream"
        ])
        let small = Array(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")))
        try await harness.test { client in
            for (name, bytes) in [("small.pdf", small), ("large.pdf", large)] {
                let id = try await client.execute(uri: "/v1/documents?filename=\(name)", method: .post, body: ByteBuffer(bytes: bytes)) {
                    try #require(try json($0)["document_id"] as? String)
                }
                let hash = BlobHash.of(bytes)
                var flipped = bytes
                flipped[bytes.count / 2] ^= 0xFF
                // Damaged in the bucket (the same length), with no local copy: as another host sees it.
                _ = try await storage.client.send(.PUT, key: storage.key(of: hash), body: .bytes(flipped), operation: "damaging \(name)")
                storage.cache.forget(hash)
                for range in [nil, "bytes=0-99", "bytes=\(bytes.count / 2 - 10)-\(bytes.count / 2 + 10)"] {
                    if range == nil && bytes.count > CheckedBlobBytes.checkedBeforeSending {
                        // Too large to read before the status: checked as it streams, its last chunk withheld.
                        do {
                            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                                #expect(Data(buffer: response.body) != Data(flipped), "the damaged file went out whole")
                            }
                        } catch {
                            // The transfer was aborted: what a client of a real connection sees.
                        }
                        continue
                    }
                    try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: range.map { [.range: $0] } ?? [:]) {
                        response in
                        #expect(response.status == .internalServerError, "\(name) \(range ?? "whole")")
                        #expect((try? errorCode(response)) == "store_damaged", "\(name) \(range ?? "whole")")
                    }
                }
                // The intact bytes again: the damaged object is replaced.
                try await client.execute(uri: "/v1/documents?filename=\(name)&title=again", method: .post, body: ByteBuffer(bytes: bytes)) {
                    #expect($0.status == .accepted)
                }
                #expect(try await storage.verify(hash), "\(name) repaired in the bucket")
                try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                    #expect(response.status == .ok && Array(Data(buffer: response.body)) == bytes, "\(name)")
                }
                // A local copy damaged after it was checked is not used: fetched again, intact.
                let copy = try await storage.localFile(for: hash)
                chmod(copy.path, 0o600)
                try Data(flipped).write(to: copy)
                try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.range: "bytes=0-99"]) { response in
                    #expect(response.status == .partialContent && Array(Data(buffer: response.body)) == Array(bytes[0...99]), "\(name)")
                }
                #expect(try await SourceFile(try storage.localFile(for: hash), followLinks: false).contentHash() == hash, "\(name): fetched again")
                // `verify --deep` checks the local copies too, and removes a damaged one.
                let again = try await storage.localFile(for: hash)
                chmod(again.path, 0o600)
                try Data(flipped).write(to: again)
                #expect(try await harness.pipeline.store.verify(rehash: true).damagedCopies == [hash.hex], "\(name)")
                #expect(await storage.cache.cached(hash) == nil)
                // Gone from the bucket, with no local copy.
                _ = try await storage.client.send(.DELETE, key: storage.key(of: hash), accepting: [200, 204], operation: "removing \(name)")
                storage.cache.forget(hash)
                for range in [nil, "bytes=0-99"] {
                    try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: range.map { [.range: $0] } ?? [:]) {
                        response in
                        #expect(
                            response.status == .internalServerError && (try? errorCode(response)) == "store_damaged", "\(name) \(range ?? "whole")")
                        #expect(String(buffer: response.body).contains("missing"), "\(name)")
                    }
                }
            }
        }
    }

    /// An `https` endpoint is reached over TLS, trusting the certificates `ca=` names (here a private
    /// CA's) besides the system's; without them the connection is refused, never made unchecked.
    @Test(.blocking) func theEndpointIsReachedOverTLS() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = folder.url.appendingPathComponent("seaweedfs")
        try FileManager.default.createDirectory(at: server.appendingPathComponent("tls"), withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8).write(
            to: folder.url.appendingPathComponent("server.ext"))
        try Self.run(
            "/bin/sh",
            [
                "-c",
                """
                cd '\(folder.url.path)' && \
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Test CA' \
                  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign && \
                openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout seaweedfs/tls/key.pem -out server.csr -subj /CN=127.0.0.1 && \
                openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out seaweedfs/tls/cert.pem
                """
            ])
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/seaweedfs").path
        // Ports picked at random (it needs twelve); another pick when one is taken.
        var started: Int?
        for _ in 0..<3 where started == nil {
            let port = Int.random(in: 20_000..<29_000)
            if (try? Self.run(script, ["start", server.path, "\(port)"])) != nil {
                started = port
            } else {
                try? Self.run(script, ["stop", server.path, "--keep"])
            }
        }
        let port = try #require(started, "SeaweedFS did not start")
        defer { try? Self.run(script, ["stop", server.path]) }
        let credentials = try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": server.appendingPathComponent("credentials").path])
        func storage(_ query: String, _ name: String) throws -> S3BlobStorage {
            try S3BlobStorage(
                location: S3Location("s3://docpreview/tls/?endpoint=https://127.0.0.1:\(port + 5)\(query)"), credentials: credentials,
                localFolder: folder.url.appendingPathComponent(name), cacheBytes: 1 << 20,
                lock: FileReferenceLock(file: folder.url.appendingPathComponent("lock"), offload: .forTests), offload: .forTests,
                logger: Logger(label: "test"))
        }
        let trusting = try storage("&ca=\(folder.url.appendingPathComponent("ca.pem").path)", "a")
        try await trusting.checkAccess()
        let hash = try await trusting.put(bytes: Array("sent over TLS".utf8), as: .original)
        #expect(try await trusting.verify(hash))
        let error = try await #require(throws: S3Error.self) { try await storage("", "b").checkAccess() }
        #expect(error.fault == .unavailable && "\(error)".contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
    }

    /// Runs `executable` with `arguments`; throws unless it exits 0.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw S3Error.configuration("\(executable) \(arguments.joined(separator: " ")) failed") }
    }
}
