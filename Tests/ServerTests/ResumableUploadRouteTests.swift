import Crypto
import Foundation
import Logging
import PreviewComposition
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewDomain
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// Resumable uploads through both front doors, on both backends: the IETF draft as iOS 17 (interop
/// version 3) and iOS 18 and later (6) speak it, and tus 1.0 with its extensions. An upload resumes
/// where its offset says, refuses what contradicts it, and completes as one ordinary document.
@Suite struct ResumableUploadRouteTests {
    static let token = SharesTests.token
    static let bearer = SharesTests.bearer

    static func field(_ response: TestResponse, _ name: String) -> String? {
        response.headers[HTTPField.Name(name)!]
    }

    static func headers(_ fields: [String: String]) -> HTTPFields {
        var headers = bearer
        for (name, value) in fields { headers[HTTPField.Name(name)!] = value }
        return headers
    }

    /// The upload's path in a `Location` (absolute or not).
    static func path(_ location: String?) throws -> String {
        let location = try #require(location, "a Location")
        return location.hasPrefix("http") ? try #require(URL(string: location)?.path) : location
    }

    @Test(arguments: TestBackend.available) func draftUploadsResumeAtTheirOffset(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        let file = Array(try Data(contentsOf: Fixtures.sample("image-cmyk.jpg")))
        try await harness.test { client in
            for version in [3, 6] {
                // iOS 17 says what is still to come (`Upload-Incomplete`), iOS 18 what is done (`Upload-Complete`).
                let more = version == 3 ? ["Upload-Incomplete": "?1"] : ["Upload-Complete": "?0"]
                let last = version == 3 ? ["Upload-Incomplete": "?0"] : ["Upload-Complete": "?1"]
                let appendType = version == 3 ? [:] : ["Content-Type": "application/partial-upload"]
                let interop = ["Upload-Draft-Interop-Version": "\(version)"]
                let location = try await client.execute(
                    uri: "/v1/uploads?owner=ana&filename=photo.jpg&title=Photo \(version)", method: .post,
                    headers: Self.headers(interop.merging(more) { $1 }),
                    body: ByteBuffer(bytes: file[..<100_000])
                ) { response in
                    #expect(response.status == .created, "\(String(buffer: response.body))")
                    #expect(Self.field(response, "Upload-Offset") == "100000")
                    #expect(Self.field(response, "Upload-Limit")?.contains("max-append-size=") == true)
                    return try Self.path(response.headers[.location])
                }
                try await client.execute(uri: location, method: .head, headers: Self.headers(interop)) { response in
                    #expect(response.status == .noContent && Self.field(response, "Upload-Offset") == "100000")
                    #expect(Self.field(response, version == 3 ? "Upload-Incomplete" : "Upload-Complete") == (version == 3 ? "?1" : "?0"))
                    #expect(response.headers[.cacheControl] == "no-store")
                }
                let rest = ByteBuffer(bytes: file[100_000...])
                try await client.execute(
                    uri: location, method: .patch,
                    headers: Self.headers(interop.merging(last) { $1 }.merging(appendType) { $1 }.merging(["Upload-Offset": "5"]) { $1 }),
                    body: rest
                ) { response in
                    #expect(response.status == .conflict && Self.field(response, "Upload-Offset") == "100000", "the offset to resume from")
                }
                if version == 6 {
                    try await client.execute(
                        uri: location, method: .patch,
                        headers: Self.headers(interop.merging(last) { $1 }.merging(["Upload-Offset": "100000"]) { $1 }),
                        body: rest
                    ) { response in
                        #expect(response.status == .unsupportedMediaType, "version 6 appends are application/partial-upload")
                    }
                }
                let append = Self.headers(interop.merging(last) { $1 }.merging(appendType) { $1 }.merging(["Upload-Offset": "100000"]) { $1 })
                let id = try await client.execute(uri: location, method: .patch, headers: append, body: rest) { response in
                    #expect(response.status == .accepted, "\(String(buffer: response.body))")
                    #expect(Self.field(response, version == 3 ? "Upload-Incomplete" : "Upload-Complete") == (version == 3 ? "?0" : "?1"))
                    let body = try json(response)
                    #expect(body["sha256"] as? String == BlobHash(SHA256.hash(data: file)).hex, "the stored original is the file")
                    return try #require(body["document_id"] as? String)
                }
                // The completing request sent again (its answer lost) gets the same document.
                try await client.execute(uri: location, method: .patch, headers: append, body: rest) { response in
                    let again = try json(response)["document_id"] as? String
                    #expect(response.status == .accepted && again == id)
                }
                try await client.execute(uri: location, method: .head, headers: Self.headers(interop)) { response in
                    #expect(Self.field(response, "Upload-Offset") == "\(file.count)" && Self.field(response, "DocPreview-Document-ID") == id)
                }
                try await client.execute(
                    uri: location, method: .patch,
                    headers: Self.headers(
                        interop.merging(last) { $1 }.merging(appendType) { $1 }
                            .merging(["Upload-Offset": "\(file.count)"]) { $1 }), body: ByteBuffer(string: "more")
                ) { response in
                    #expect(response.status == .badRequest, "nothing is appended to a complete upload")
                }
                try await client.execute(uri: "/v1/documents/\(id)", method: .get, headers: Self.bearer) { response in
                    let document = try json(response)
                    #expect(document["title"] as? String == "Photo \(version)" && document["filename"] as? String == "photo.jpg")
                }
            }
        }
    }

    @Test(arguments: TestBackend.available) func tusUploadsWithChecksumsAndADeferredLength(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        let file = Array(try Data(contentsOf: Fixtures.sample("image-cmyk.jpg")))
        let (first, rest) = (Array(file[..<300_000]), Array(file[300_000...]))
        let tus = ["Tus-Resumable": "1.0.0"]
        try await harness.test { client in
            try await client.execute(uri: "/v1/uploads/tus", method: .options, headers: Self.bearer) { response in
                #expect(Self.field(response, "Tus-Extension")?.contains("creation-defer-length") == true)
                #expect(Self.field(response, "Tus-Checksum-Algorithm") == "sha1,sha256")
            }
            try await client.execute(uri: "/v1/uploads/tus", method: .post, headers: Self.headers(["Upload-Defer-Length": "1"])) { response in
                #expect(response.status == .preconditionFailed && Self.field(response, "Tus-Version") == "1.0.0")
            }
            let metadata = "filename \(Data("scan.jpg".utf8).base64EncodedString()),owner \(Data("bo".utf8).base64EncodedString())"
            let location = try await client.execute(
                uri: "/v1/uploads/tus", method: .post,
                headers: Self.headers(tus.merging(["Upload-Defer-Length": "1", "Upload-Metadata": metadata]) { $1 })
            ) { response in
                #expect(response.status == .created && Self.field(response, "Upload-Expires")?.hasSuffix(" GMT") == true)
                return try Self.path(response.headers[.location])
            }
            let append = tus.merging(["Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"]) { $1 }
            let wrong = "sha1 " + Data(Insecure.SHA1.hash(data: rest)).base64EncodedString()
            try await client.execute(
                uri: location, method: .patch, headers: Self.headers(append.merging(["Upload-Checksum": wrong]) { $1 }),
                body: ByteBuffer(bytes: first)
            ) { response in
                let error = try json(response)["error"] as? [String: Any]
                #expect(response.status.code == 460 && error?["code"] as? String == "checksum_mismatch")
            }
            try await client.execute(uri: location, method: .head, headers: Self.headers(tus)) { response in
                #expect(
                    Self.field(response, "Upload-Offset") == "0" && Self.field(response, "Upload-Defer-Length") == "1",
                    "bytes that failed their checksum are not kept")
            }
            let right = "sha256 " + Data(SHA256.hash(data: first)).base64EncodedString()
            try await client.execute(
                uri: location, method: .patch, headers: Self.headers(append.merging(["Upload-Checksum": right]) { $1 }),
                body: ByteBuffer(bytes: first)
            ) { response in
                #expect(response.status == .noContent && Self.field(response, "Upload-Offset") == "300000")
            }
            let last = append.merging(["Upload-Offset": "300000", "Upload-Length": "\(file.count)"]) { $1 }
            let id = try await client.execute(uri: location, method: .patch, headers: Self.headers(last), body: ByteBuffer(bytes: rest)) { response in
                #expect(response.status == .ok && Self.field(response, "Upload-Offset") == "\(file.count)")
                return try #require(Self.field(response, "DocPreview-Document-ID"))
            }
            try await client.execute(uri: "/v1/documents/\(id)", method: .get, headers: Self.bearer) { response in
                let document = try json(response)
                #expect(document["owner"] as? String == "bo" && document["filename"] as? String == "scan.jpg")
                #expect(document["sha256"] as? String == BlobHash(SHA256.hash(data: file)).hex)
            }
            try await client.execute(
                uri: location, method: .patch, headers: Self.headers(last.merging(["Upload-Offset": "0"]) { $1 }),
                body: ByteBuffer(bytes: first)
            ) { response in
                #expect(response.status == .conflict, "a complete upload takes nothing more")
            }
        }
    }

    /// Sizes past the limit are refused before a byte is sent (413, with the limits); an owner's
    /// open uploads are capped (429); an upload out of time is gone (410), and `gc`'s sweep removes
    /// it with its bytes; a cancelled one is not found.
    @Test(arguments: TestBackend.available) func limitsExpiryAndCancelling(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let tooLarge = documents.limits.maxFileBytes + 1
        let draft = ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0"]
        let staging = harness.folder.url.appendingPathComponent("uploads")
        try await harness.test { client in
            try await client.execute(
                uri: "/v1/uploads?owner=ana", method: .post,
                headers: Self.headers(draft.merging(["Upload-Length": "\(tooLarge)"]) { $1 })
            ) { response in
                #expect(response.status == .contentTooLarge && Self.field(response, "Upload-Limit")?.contains("max-size=") == true)
            }
            try await client.execute(
                uri: "/v1/uploads/tus", method: .post,
                headers: Self.headers(["Tus-Resumable": "1.0.0", "Upload-Length": "\(tooLarge)"])
            ) { response in
                #expect(response.status == .contentTooLarge)
            }
            var locations: [String] = []
            for index in 0..<documents.uploadPolicy.caps.sessionsPerOwner {
                locations.append(
                    try await client.execute(
                        uri: "/v1/uploads?owner=cy&filename=\(index).jpg", method: .post, headers: Self.headers(draft),
                        body: ByteBuffer(string: "part")
                    ) { try Self.path($0.headers[.location]) })
            }
            try await client.execute(uri: "/v1/uploads?owner=cy", method: .post, headers: Self.headers(draft)) { response in
                #expect(response.status == .tooManyRequests, "an owner's open uploads are capped")
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: Self.bearer) { response in
                let statistics = try json(response)
                #expect(statistics["open_uploads"] as? Int == locations.count && statistics["staged_upload_bytes"] as? Int == 4 * locations.count)
            }
            try await client.execute(uri: locations[0], method: .delete, headers: Self.bearer) { #expect($0.status == .noContent) }
            try await client.execute(uri: locations[0], method: .head, headers: Self.bearer) { #expect($0.status == .notFound) }
            harness.clock.advance(by: .seconds(Int(documents.uploadPolicy.lifetime) + 1))
            try await client.execute(uri: locations[1], method: .head, headers: Self.bearer) { #expect($0.status == .gone) }
            #expect(try await documents.collectUploads(grace: 0).uploads == locations.count, "the cancelled one's row too")
            try await client.execute(uri: locations[1], method: .head, headers: Self.bearer) { #expect($0.status == .notFound) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty, "their staged bytes are gone too")
        }
    }

    /// A file its first bytes already refuse is refused as they arrive (415, in the app's words),
    /// its upload ended with nothing kept, through either door, before the rest is sent.
    @Test(arguments: TestBackend.available) func theFirstBytesRefuseAFile(backend: TestBackend) async throws {
        let harness = try await Harness(backend, token: Self.token)
        defer { harness.folder.remove() }
        let padding = [UInt8](repeating: 0, count: 2 * ByteProbe.windowSize)
        let executable = Array(try Data(contentsOf: Fixtures.sample("bad-executable.pdf"))) + padding
        let png = Array(try Data(contentsOf: Fixtures.sample("image-alpha.png")))
        try await harness.test { client in
            let draft = ["Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0"]
            let location = try await client.execute(
                uri: "/v1/uploads?owner=ana&type=highlight_video&filename=clip.mp4", method: .post,
                headers: Self.headers(draft)
            ) { try Self.path($0.headers[.location]) }
            let append = draft.merging(["Content-Type": "application/partial-upload", "Upload-Offset": "0"]) { $1 }
            try await client.execute(uri: location, method: .patch, headers: Self.headers(append), body: ByteBuffer(bytes: executable)) { response in
                let error = try json(response)["error"] as? [String: Any]
                #expect(response.status == .unsupportedMediaType && error?["code"] as? String == "executable_refused")
            }
            try await client.execute(uri: location, method: .head, headers: Self.headers(draft)) { #expect($0.status == .notFound) }
            // tus, its length declared: a PNG under a video's name, refused in its first append.
            let metadata = "filename \(Data("clip.mp4".utf8).base64EncodedString()),type \(Data("highlight_video".utf8).base64EncodedString())"
            let tus = ["Tus-Resumable": "1.0.0"]
            let upload = try await client.execute(
                uri: "/v1/uploads/tus?owner=ana", method: .post,
                headers: Self.headers(
                    tus.merging([
                        "Upload-Length": "\(png.count + padding.count)",
                        "Upload-Metadata": metadata
                    ]) { $1 })
            ) {
                try Self.path($0.headers[.location])
            }
            let first = ByteBuffer(bytes: png.prefix(ByteProbe.windowSize + 1))
            try await client.execute(
                uri: upload, method: .patch,
                headers: Self.headers(
                    tus.merging([
                        "Content-Type": "application/offset+octet-stream", "Upload-Offset": "0"
                    ]) { $1 }), body: first
            ) { response in
                let error = try json(response)["error"] as? [String: Any]
                #expect(response.status == .unsupportedMediaType && error?["code"] as? String == "content_mismatch")
                #expect(error?["message"] as? String == "This file is not an MP4 video (its contents are a PNG image).")
            }
            try await client.execute(uri: upload, method: .head, headers: Self.headers(tus)) { #expect($0.status == .notFound) }
        }
        #expect(try await harness.server.documents.stagedUploadParts().isEmpty, "nothing of them is kept")
        #expect(try await harness.server.documents.uploadFigures().open == 0)
    }

}
