import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewStore
import PreviewTestSupport
import Testing

/// The document service without HTTP, on both backends: what a controller or a command relies on —
/// an accepted upload is a document with its job, a refused one leaves nothing, a title in use
/// makes a new version of the same bytes, delete and restore move between versions, a share opens
/// until it is revoked.
@Suite struct DocumentServiceTests {
    /// A service over a fresh store of `backend`, in this process, on a clock the test holds.
    static func service(_ backend: TestBackend, in folder: TemporaryFolder) async throws -> (DocumentService, StoreBackend) {
        let opened = try await backend.open(root: folder.url.appendingPathComponent("store"))
        return (DocumentService(backend: opened, offload: .forTests, clock: ManualClock(), logger: Logger(label: "test")), opened)
    }

    /// Accepts the sample `name` as an upload titled `title`.
    static func upload(_ documents: DocumentService, _ name: String, title: String, as filename: String) async throws -> (
        document: Document, job: JobRecord
    ) {
        let writer = try documents.receiving()
        try writer.write(try Data(contentsOf: Fixtures.sample(name)))
        return try await documents.accept(writer, labels: DocumentLabels(owner: "ana", title: title, filename: filename))
    }

    @Test(arguments: TestBackend.available) func anAcceptedUploadIsADocumentWithItsJob(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (documents, opened) = try await Self.service(backend, in: folder)
        let (document, job) = try await Self.upload(documents, "document-5-pages.pdf", title: "Letter", as: "letter.pdf")
        #expect(job.status == .queued && document.kind == .pdf && document.version == 1)
        #expect(try await documents.queuedJobs() == 1)
        // A worker's turn: the job leased, run, recorded.
        let leased = try #require(try await opened.queue.lease(worker: "test", leaseSeconds: 60, kinds: [.preview]))
        #expect(leased.job.id == job.id)
        let run = try await documents.run(leased.job, of: leased.document)
        guard case .done = run else { Issue.record("the job ended \(run)"); return }
        let stored = try await documents.document(id: document.id)
        #expect(stored.previewStatus == .ready && stored.pages == 5)
    }

    @Test(arguments: TestBackend.available) func aRefusedFileLeavesNothing(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (documents, opened) = try await Self.service(backend, in: folder)
        await #expect(throws: PreviewError.self) {
            try await Self.upload(documents, "bad-windows.exe", title: "Not a letter", as: "letter.pdf")
        }
        let listed = try await documents.list(DocumentQuery()).documents
        let queued = try await documents.queuedJobs()
        #expect(listed.isEmpty && queued == 0)
        #expect(try await opened.store.blobs.allBlobs().isEmpty, "no blob kept of a refused file")
    }

    @Test(arguments: TestBackend.available) func versionsAreDeletedAndRestored(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (documents, _) = try await Self.service(backend, in: folder)
        let first = try await Self.upload(documents, "document-5-pages.pdf", title: "Letter", as: "letter.pdf").document
        let second = try await Self.upload(documents, "image.webp", title: "Letter", as: "letter.webp").document
        let versions = try await documents.versions(of: first.id)
        #expect(second.version == 2 && versions.count == 2, "a title in use is a new version")

        let restored = try await documents.restore(version: 1, of: first.id).document
        #expect(restored.version == 3 && restored.sha256 == first.sha256, "a restore is a new version naming the same bytes")
        let again = try await documents.restore(version: 3, of: first.id).document
        #expect(again.version == 3, "restoring what is current changes nothing")

        let deletion = try await documents.delete(id: first.id, version: 3)
        #expect(deletion.versions.map(\.version) == [3])
        #expect(try await documents.versions(of: first.id).map(\.version).sorted() == [1, 2])
        await #expect(throws: PreviewError.self) { try await documents.delete(id: first.id, version: 3) }
    }

    @Test(arguments: TestBackend.available) func aShareOpensUntilItIsRevoked(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (documents, _) = try await Self.service(backend, in: folder)
        let document = try await Self.upload(documents, "document-5-pages.pdf", title: "Transcript", as: "transcript.pdf").document
        let request = try JSONDecoder().decode(DocumentService.ShareRequest.self, from: Data(#"{"label": "Coach Lee"}"#.utf8))
        let (share, token) = try await documents.share(document.id, request)
        #expect(try await documents.openShare(token: token).document.id == document.id)
        try await documents.revokeShare(share.id)
        await #expect {
            try await documents.openShare(token: token)
        } throws: { ($0 as? PreviewError)?.code == .gone }
    }
}
