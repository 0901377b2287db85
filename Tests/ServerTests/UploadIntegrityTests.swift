import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewCore
@testable import PreviewDocuments
import PreviewDomain
@testable import PreviewS3
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// No damaged upload becomes a document and no upload says it is done when it is not (issue 65,
/// items 1–4 and 6): staged parts are checked against the hash they were kept with, a checksum
/// covers all of its request or nothing is kept, a complete upload that is no document yet is
/// finished, `gc` leaves open uploads' parts alone, and a tus `HEAD` reads a final offset.
@Suite struct UploadIntegrityTests {
    static let token = SharesTests.token
    static let tus = ["Tus-Resumable": "1.0.0"]
    static let append = tus.merging(["Content-Type": "application/offset+octet-stream"]) { $1 }

    static func headers(_ fields: [String: String]) -> HTTPFields { ResumableUploadRouteTests.headers(fields) }

    static func file() throws -> [UInt8] { Array(try Data(contentsOf: Fixtures.sample("image-cmyk.jpg"))) }

    static func harness(_ backend: TestBackend, _ blobs: TestBlobs) async throws -> Harness {
        let folder = try TemporaryFolder()
        return try Harness(opened: try await backend.open(root: folder.url, blobs: blobs), folder: folder, token: token)
    }

    /// A new tus upload of `length` bytes; its path.
    static func create(_ client: some TestClientProtocol, length: Int) async throws -> String {
        try await client.execute(
            uri: "/v1/uploads/tus?owner=ana&filename=photo.jpg", method: .post,
            headers: headers(tus.merging(["Upload-Length": "\(length)"]) { $1 })
        ) { response in
            #expect(response.status == .created)
            return try ResumableUploadRouteTests.path(response.headers[.location])
        }
    }

    /// A new tus upload of `file` with its first 300,000 bytes appended; its path and id.
    static func createWithFirstPart(_ client: some TestClientProtocol, of file: [UInt8]) async throws -> (location: String, id: String) {
        let location = try await create(client, length: file.count)
        try await client.execute(
            uri: location, method: .patch, headers: headers(append.merging(["Upload-Offset": "0"]) { $1 }),
            body: ByteBuffer(bytes: file[..<300_000])
        ) { #expect($0.status == .noContent) }
        return (location, String(location.split(separator: "/").last ?? ""))
    }

    static func offset(_ client: some TestClientProtocol, _ location: String) async throws -> String? {
        try await client.execute(uri: location, method: .head, headers: headers(tus)) { ResumableUploadRouteTests.field($0, "Upload-Offset") }
    }

    /// Returns once an append to the upload at `location` has begun writing its bytes (it holds the upload then).
    static func awaitBytes(of location: String, harness: Harness) async throws {
        let staging = harness.folder.url.appendingPathComponent("uploads/\(location.split(separator: "/").last!)")
        try await onOwnThread {
            try waitUntil("the append to arrive") { !((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []).isEmpty }
        }
    }

    enum Damage: CaseIterable { case flipped, truncated, removed }

    /// Damages the staged parts of upload `id` behind the store's back: in the folder's staging,
    /// and for S3 in the bucket as well as in this host's copies, so no intact copy is left.
    static func damage(_ id: String, _ how: Damage, harness: Harness) async throws {
        let folder = harness.folder.url.appendingPathComponent("uploads/\(id)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".part") }
        #expect(!files.isEmpty, "the upload has staged parts")
        func damaged(_ bytes: [UInt8]) -> [UInt8]? {
            switch how {
            case .flipped: var bytes = bytes; for index in 1_000..<1_008 { bytes[index] ^= 0xFF }; return bytes
            case .truncated: return Array(bytes.prefix(bytes.count / 2))
            case .removed: return nil
            }
        }
        for file in files {
            let url = folder.appendingPathComponent(file)
            if let bytes = damaged(Array(try Data(contentsOf: url))) {
                try Data(bytes).write(to: url)
            } else {
                try FileManager.default.removeItem(at: url)
            }
            guard let storage = harness.pipeline.store.blobs as? S3BlobStorage else { continue }
            let key = "\(storage.location.prefix)staging/uploads/\(id)/\(file)"
            let (path, object) = (harness.folder.url.appendingPathComponent("fetched").path, harness.folder.url.appendingPathComponent("fetched"))
            _ = try await storage.client.download(key: key, to: path, operation: "reading a part to damage it")
            if let bytes = damaged(Array(try Data(contentsOf: object))) {
                _ = try await storage.client.send(.PUT, key: key, body: .bytes(bytes), operation: "damaging a part")
            } else {
                _ = try await storage.client.send(.DELETE, key: key, accepting: [200, 204], operation: "removing a part")
            }
            try FileManager.default.removeItem(at: object)
        }
    }

    /// Item 1: a staged part damaged, cut short or removed is found by `verify`, never assembled:
    /// the upload falls back to where the part started (by the completing append, or by
    /// `recover`), the client sends the rest again, and the document is exactly the file.
    @Test(arguments: TestBackend.available, TestBlobs.available.filter { $0 != .moto })
    func aDamagedStagedPartSetsTheUploadBack(backend: TestBackend, blobs: TestBlobs) async throws {
        let harness = try await Self.harness(backend, blobs)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let file = try Self.file()
        try await harness.test { client in
            for how in Damage.allCases {
                let (location, id) = try await Self.createWithFirstPart(client, of: file)
                try await Self.damage(id, how, harness: harness)
                let problems = try await documents.verify(deep: true).uploadProblems
                #expect(problems.count == 1 && problems.first?.contains(id) == true, "verify names the part (\(how)): \(problems)")
                if how == .truncated {
                    #expect(try await documents.recover(includingQuarantine: false).uploadsSetBack.count == 1, "recover sets it back")
                } else {
                    try await client.execute(
                        uri: location, method: .patch,
                        headers: Self.headers(Self.append.merging(["Upload-Offset": "300000"]) { $1 }),
                        body: ByteBuffer(bytes: file[300_000...])
                    ) { response in
                        #expect(response.status == .conflict, "never assembled (\(how)): \(String(buffer: response.body))")
                    }
                }
                #expect(try await Self.offset(client, location) == "0", "the offset falls back to before the damaged part (\(how))")
                #expect(try await documents.verify(deep: true).uploadProblems.isEmpty)
                let id2 = try await client.execute(
                    uri: location, method: .patch, headers: Self.headers(Self.append.merging(["Upload-Offset": "0"]) { $1 }),
                    body: ByteBuffer(bytes: file)
                ) { response in
                    #expect(response.status == .ok, "\(String(buffer: response.body))")
                    return try #require(ResumableUploadRouteTests.field(response, "DocPreview-Document-ID"))
                }
                try await client.execute(uri: "/v1/documents/\(id2)", method: .get, headers: SharesTests.bearer) { response in
                    let stored = try json(response)["sha256"] as? String
                    #expect(stored == BlobHash(SHA256.hash(data: file)).hex, "the document is the file (\(how))")
                }
            }
        }
    }

    /// Item 3: an upload whose every byte was kept but that a stopped server never made a document
    /// (the state a kill during the final assembly leaves) is finished by its next tus `HEAD`, and
    /// by a starting server (``DocumentService/finishReceivedUploads()``); neither answers an
    /// offset equal to the length without a document.
    @Test(arguments: TestBackend.available) func aCompleteUploadLeftWithoutItsDocumentIsFinished(backend: TestBackend) async throws {
        let harness = try await Self.harness(backend, .folder)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let uploads = try documents.resumableUploads()
        let file = try Self.file()
        /// Keeps every byte of upload `id` as an append does, and stops before putting it together.
        @Sendable func receivedWithoutDocument(_ id: String) async throws {
            let part = try uploads.staging.newPart(of: id, at: 0)
            try part.write(file)
            #expect(try await uploads.sessions.append(try await uploads.staging.keep(part), to: id) != nil)
        }
        try await harness.test { client in
            let byHead = try await Self.create(client, length: file.count)
            try await receivedWithoutDocument(String(byHead.split(separator: "/").last!))
            let document = try await client.execute(uri: byHead, method: .head, headers: Self.headers(Self.tus)) { response in
                #expect(ResumableUploadRouteTests.field(response, "Upload-Offset") == "\(file.count)")
                return try #require(ResumableUploadRouteTests.field(response, "DocPreview-Document-ID"), "a full offset comes with its document")
            }
            try await client.execute(uri: "/v1/documents/\(document)/content", method: .get, headers: SharesTests.bearer) { response in
                #expect(Array(response.body.readableBytesView) == file)
            }
            let atStart = try await Self.create(client, length: file.count)
            try await receivedWithoutDocument(String(atStart.split(separator: "/").last!))
            #expect(try await documents.finishReceivedUploads() == 1, "a starting server finishes it")
            try await client.execute(uri: atStart, method: .head, headers: Self.headers(Self.tus)) { response in
                #expect(ResumableUploadRouteTests.field(response, "DocPreview-Document-ID") != nil)
            }
        }
    }

    /// Item 4: `gc`, whatever its grace, leaves every part of an open upload alone: a part kept a
    /// moment ago that the index does not list yet, and one still being received.
    @Test(arguments: TestBackend.available, TestBlobs.available.filter { $0 != .moto })
    func gcNeverRemovesAPartOfAnOpenUpload(backend: TestBackend, blobs: TestBlobs) async throws {
        let harness = try await Self.harness(backend, blobs)
        defer { harness.folder.remove() }
        let documents = harness.server.documents
        let uploads = try documents.resumableUploads()
        let file = try Self.file()
        try await harness.test { client in
            let (_, id) = try await Self.createWithFirstPart(client, of: file)
            let justKept = try uploads.staging.newPart(of: id, at: 300_000)
            try justKept.write(file[300_000...])
            let kept = try await uploads.staging.keep(justKept)
            let receiving = try uploads.staging.newPart(of: id, at: 300_000)
            try receiving.write(file[300_000..<310_000])
            harness.clock.advance(by: .seconds(3_600))
            #expect(try await documents.collectUploads(grace: 0).strayParts == 0)
            #expect(FileManager.default.fileExists(atPath: receiving.url.path), "the part being received is still there")
            #expect(try await documents.stagedUploadParts().contains(kept.name), "the part just kept is still there")
            #expect(try await uploads.sessions.append(kept, to: id) != nil)
            receiving.discard()
            #expect(try await documents.finishIfReceived(id, front: .tus).status == .complete, "every part it lists is there")
        }
    }

}
