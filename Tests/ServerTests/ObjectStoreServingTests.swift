import Foundation
import Logging
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewS3
import PreviewStore
import PreviewTestSupport
import Testing

/// Originals in an object store reach clients by byte range, straight from the store: a seek in a
/// player is one ranged GET, never a whole download first.
@Suite(.enabled(if: TestBlobs.available.contains(.s3)))
struct ObjectStoreServingTests {
    @Test func aSeekIsOneRangedGet() async throws {
        let folder = try TemporaryFolder()
        let harness = try Harness(opened: try TestBackend.sqlite.open(root: folder.url, blobs: .s3), folder: folder)
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
            #expect(storage.requests("GET") == before.get + 1 && storage.requests("HEAD") == before.head, "one ranged GET, nothing else")
            try await client.execute(uri: "/v1/documents/\(id)/content", method: .get) { response in
                #expect(response.status == .ok && Data(buffer: response.body) == bytes, "whole, checked against its hash as it streams")
            }
            #expect(storage.requests("GET") == before.get + 2)
            #expect(storage.cacheCounts.misses == 0, "served without a download into the cache")
        }
    }

    /// An `https` endpoint is reached over TLS, trusting the certificates `ca=` names (here a private
    /// CA's) besides the system's; without them the connection is refused, never made unchecked.
    @Test func theEndpointIsReachedOverTLS() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = folder.url.appendingPathComponent("seaweedfs")
        try FileManager.default.createDirectory(at: server.appendingPathComponent("tls"), withIntermediateDirectories: true)
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8).write(to: folder.url.appendingPathComponent("server.ext"))
        try Self.run("/bin/sh", ["-c", """
            cd '\(folder.url.path)' && \
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=Test CA' \
              -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign && \
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout seaweedfs/tls/key.pem -out server.csr -subj /CN=127.0.0.1 && \
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out seaweedfs/tls/cert.pem
            """])
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/seaweedfs").path
        // Ports picked at random (it needs twelve); another pick when one is taken.
        var started: Int?
        for _ in 0..<3 where started == nil {
            let port = Int.random(in: 20_000..<29_000)
            if (try? Self.run(script, ["start", server.path, "\(port)"])) != nil { started = port } else { try? Self.run(script, ["stop", server.path, "--keep"]) }
        }
        let port = try #require(started, "SeaweedFS did not start")
        defer { try? Self.run(script, ["stop", server.path]) }
        let credentials = try S3Credentials.fromEnvironment(["AWS_SHARED_CREDENTIALS_FILE": server.appendingPathComponent("credentials").path])
        func storage(_ query: String, _ name: String) throws -> S3BlobStorage {
            try S3BlobStorage(location: S3Location("s3://docpreview/tls/?endpoint=https://127.0.0.1:\(port + 5)\(query)"), credentials: credentials,
                              localFolder: folder.url.appendingPathComponent(name), cacheBytes: 1 << 20,
                              lock: FileReferenceLock(file: folder.url.appendingPathComponent("lock")), logger: Logger(label: "test"))
        }
        let trusting = try storage("&ca=\(folder.url.appendingPathComponent("ca.pem").path)", "a")
        try trusting.checkAccess()
        let hash = try trusting.put(bytes: Array("sent over TLS".utf8), as: .original)
        #expect(try trusting.verify(hash))
        let error = try #require(throws: S3Error.self) { try storage("", "b").checkAccess() }
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
