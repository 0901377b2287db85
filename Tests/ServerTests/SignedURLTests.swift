import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// Signed URLs: a document's files read without the token until the URL expires, bound to every
/// character of it, refused once its key is retired or its version deleted.
@Suite struct SignedURLTests {
    static let token = "correct-horse-battery-staple"
    static let current = (id: "k2", secret: String(repeating: "b", count: 40))
    static let retired = (id: "k1", secret: String(repeating: "a", count: 40))
    static let bearer: HTTPFields = [.authorization: "Bearer \(token)"]

    @Test(arguments: TestBackend.available) func aSignedURLReadsUntilItExpires(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token, signingKeys: try SigningKeys([Self.current, Self.retired]))
        defer { harness.folder.remove() }
        let original = try Data(contentsOf: Fixtures.sample("image.webp"))
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=a.webp&title=A", method: .post, headers: Self.bearer,
                body: ByteBuffer(bytes: original)
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()
            let links = try await client.execute(
                uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: Self.bearer,
                body: ByteBuffer(string: #"{"expires_in": 3600}"#)
            ) { response in
                #expect(response.status == .ok)
                return try json(response)
            }
            let content = try #require(links["content"] as? String)
            let preview = try #require(links["preview"] as? String)
            #expect(content.hasPrefix("/v1/documents/\(id)/content?exp=") && content.contains("&kid=k2&sig="))
            let expires = try #require(links["expires_at"] as? Int)
            #expect(expires == harness.clock.unixSeconds + 3600)

            // No token: the original (whole, a range, HEAD) and the thumbnail.
            try await client.execute(uri: content, method: .get) { response in
                #expect(response.status == .ok && Data(buffer: response.body) == original)
            }
            try await client.execute(uri: content, method: .get, headers: [.range: "bytes=0-9"]) { response in
                #expect(response.status == .partialContent && response.body.readableBytes == 10)
                #expect(response.headers[.contentRange] == "bytes 0-9/\(original.count)")
            }
            try await client.execute(uri: content, method: .head) { #expect($0.status == .ok && $0.headers[.eTag] != nil) }
            try await client.execute(uri: preview, method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("image/") == true)
            }
            // A changed character anywhere (path, expiry, key id, signature) is refused: 403, or
            // 401 where the change unmade the `sig` parameter and the token is missing.
            for index in content.indices where content[index] != "?" {
                let changed = String(content[..<index]) + (content[index] == "a" ? "b" : "a") + String(content[content.index(after: index)...])
                try await client.execute(uri: changed, method: .get) { response in
                    #expect([.forbidden, .unauthorized].contains(response.status), "\(changed): \(response.status)")
                }
            }
            // Expired, signed for another route, or used to write: refused.
            let signer = SignedURLs(keys: try SigningKeys([Self.current]))
            try await client.execute(uri: signer.sign("/v1/documents/\(id)/content", expires: harness.clock.unixSeconds - 1), method: .get) {
                response in
                #expect(response.status == .forbidden)
                let message = (try json(response)["error"] as? [String: Any])?["message"] as? String
                #expect(message == "This link has expired.")
            }
            for path in ["/v1/documents", "/v1/documents/\(id)", "/v1/stats", "/v1/documents/\(id)/versions"] {
                try await client.execute(uri: signer.sign(path, expires: expires), method: .get) { #expect($0.status == .forbidden, "\(path)") }
            }
            try await client.execute(uri: signer.sign("/v1/documents/\(id)/content", expires: expires), method: .delete) {
                #expect($0.status == .forbidden)
            }
            // Deleted: its URLs serve nothing.
            try await client.execute(uri: "/v1/documents/\(id)", method: .delete, headers: Self.bearer) { #expect($0.status == .ok) }
            try await client.execute(uri: content, method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: preview, method: .get) { #expect($0.status == .notFound) }
            // An hour on, the link has expired.
            harness.clock.advance(by: .seconds(3601))
            try await client.execute(uri: content, method: .get) { response in
                #expect(response.status == .forbidden)
                let message = (try json(response)["error"] as? [String: Any])?["message"] as? String
                #expect(message == "This link has expired.")
            }
        }
    }

    /// Rotation: a URL signed with a key still listed works; once the key is removed, it is refused.
    @Test func aRetiredKeysURLsAreRefused() async throws {
        let listed = try await Harness(token: Self.token, signingKeys: try SigningKeys([Self.current, Self.retired]))
        defer { listed.folder.remove() }
        let id = try await Self.storedPhoto(listed)
        let old = SignedURLs(keys: try SigningKeys([Self.retired])).sign("/v1/documents/\(id)/content", expires: listed.clock.unixSeconds + 3600)
        try await listed.test { client in
            try await client.execute(uri: old, method: .get) { #expect($0.status == .ok) }
        }
        let removed = try await Harness(
            opened: try TestBackend.sqlite.open(root: listed.folder.url), folder: listed.folder, token: Self.token,
            signingKeys: try SigningKeys([Self.current]))
        try await removed.test { client in
            try await client.execute(uri: old, method: .get) { #expect($0.status == .forbidden) }
        }
    }

    /// Without signing keys no URL is signed or accepted.
    @Test func aServerWithoutKeysSignsNothing() async throws {
        let harness = try await Harness(token: Self.token)
        defer { harness.folder.remove() }
        let id = try await Self.storedPhoto(harness)
        let url = SignedURLs(keys: try SigningKeys([Self.current])).sign("/v1/documents/\(id)/content", expires: harness.clock.unixSeconds + 3600)
        try await harness.test { client in
            try await client.execute(uri: "/v1/documents/\(id)/signed-urls", method: .post, headers: Self.bearer) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .forbidden) }
        }
    }

    /// A playlist or thumbnails track served through a signed URL names its files by signed URLs
    /// (for the share it was signed for, if any).
    @Test func playlistsAndTracksNameTheirFilesBySignedURLs() throws {
        let signer = SignedURLs(keys: try SigningKeys([Self.current]))
        let folder = "/v1/documents/d/hls/"
        let playlist = "#EXTM3U\n#EXT-X-MAP:URI=\"360p.mp4\",BYTERANGE=\"800@0\"\n#EXTINF:2.0,\n#EXT-X-BYTERANGE:1000@800\n360p.mp4\n#EXT-X-ENDLIST\n"
        let signed = ContentController.Reference.playlist.signing(playlist, folder: folder, signed: signer, grant: .init(expires: 2_000_000_000))
        let lines = signed.split(separator: "\n")
        let media = signer.sign(folder + "360p.mp4", expires: 2_000_000_000)
        #expect(lines[1] == "#EXT-X-MAP:URI=\"\(media)\",BYTERANGE=\"800@0\"" && lines[4] == media && lines[3] == "#EXT-X-BYTERANGE:1000@800")
        let track = "WEBVTT\n\n00:00:00.000 --> 00:00:05.000\nsprite-0.jpg#xywh=0,0,240,136\n"
        let signedTrack = ContentController.Reference.track.signing(
            track, folder: "/t/", signed: signer, grant: .init(expires: 2_000_000_000, share: "s1"))
        #expect(
            signedTrack.split(separator: "\n")[2]
                == "\(signer.sign("/t/sprite-0.jpg", query: [("share", "s1")], expires: 2_000_000_000))#xywh=0,0,240,136")
        #expect(signedTrack.hasPrefix("WEBVTT\n\n00:00:00.000 --> 00:00:05.000\n"))
    }

    /// Key files: `ID SECRET` lines; short secrets, odd ids and duplicates are refused.
    @Test func keyFilesAreChecked() throws {
        #expect(throws: PreviewError.self) { try SigningKeys([("k1", "short")]) }
        #expect(throws: PreviewError.self) { try SigningKeys([("k 1", String(repeating: "a", count: 40))]) }
        #expect(throws: PreviewError.self) { try SigningKeys([Self.current, Self.current]) }
        #expect(throws: PreviewError.self) { try SigningKeys([]) }
        let line = SigningKeys.newLine()
        let parts = line.split(separator: " ")
        #expect(parts.count == 2 && parts[0].hasPrefix("k") && parts[1].count == 43)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# rotated in today\n\(line)\n\nk1 \(Self.retired.secret)\n".utf8).write(to: file)
        #expect(try SigningKeys(contentsOf: file).keys.map(\.id) == [String(parts[0]), "k1"])
        // A readable file in another format is refused as such, with the format it must have.
        for (content, says) in [
            (Data([0x30, 0x82, 0x01, 0x0a, 0x00, 0xff]), "is not text"), (Data(#"{"k1": "secret"}"#.utf8), "must be letters, digits")
        ] {
            try content.write(to: file)
            let error = try #require(throws: PreviewError.self) { try SigningKeys(contentsOf: file) }
            #expect(error.message.contains(says) && error.message.contains("`ID SECRET` lines"), "\(error.message)")
        }
        let missing = try #require(throws: PreviewError.self) { try SigningKeys(contentsOf: file.appendingPathExtension("gone")) }
        #expect(missing.message.hasPrefix("Cannot read the signing key file"))
    }

    static func storedPhoto(_ harness: Harness) async throws -> String {
        let stored = try await harness.pipeline.store.blobs.put(fileAt: Fixtures.sample("image.webp"))
        let record = Document(
            id: UUID().uuidString, owner: "", type: nil, title: "photo", filename: "p.webp", sha256: stored.hash, kind: .webp,
            mime: "image/webp", size: stored.size, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
        return try await harness.queue.enqueue(record).document.id
    }
}
