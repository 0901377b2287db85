import Foundation
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// Answer first, persist right after (issue 31): a preview rendered for a request is answered from
/// the renderer's bytes and stored once the answer has gone.
@Suite(.blocking, .serialized) struct AnswerFirstTests {
    /// The test hook stores a rendered page 2 s after its answer. A SIGKILL in between leaves a
    /// store that `verify` finds clean and that has no trace of the page; the restarted server
    /// renders it again when asked, and keeps it then.
    @Test(arguments: TestBackend.available) func aPreviewAnsweredButNotYetKeptIsRenderedAgainAfterACrash(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = folder.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let server = try ServerProcess(store: store, workers: 1, extra: database, environment: ["DOCPREVIEW_TEST_HOOKS": "1"])
        let id = try #require(
            try server.upload(try Data(contentsOf: Fixtures.sample("document-5-pages.pdf")), query: "filename=d.pdf")
                .json?["document_id"] as? String)
        try server.document(id, reaching: ["done"])
        // Its text job follows the preview job, and adds its derivative: counted before the page.
        try waitUntil("the document's text to be read") { try server.get("/v1/documents/\(id)/text").status == 200 }
        func previews(_ server: ServerProcess) throws -> Int { try server.get("/v1/stats").json?["previews"] as? Int ?? -1 }
        let before = try previews(server)
        let blobsBefore = try verify(store, database)["blobs_checked"] as? Int

        #expect(try server.get("/v1/documents/\(id)/preview?page=3&width=600").status == 200)
        #expect(try previews(server) == before, "answered before it was stored")
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        let afterCrash = try verify(store, database)
        #expect(afterCrash["clean"] as? Bool == true, "\(afterCrash)")
        #expect(afterCrash["blobs_checked"] as? Int == blobsBefore, "nothing of the page reached the store")

        let restarted = try ServerProcess(store: store, workers: 1, extra: database)
        #expect(try previews(restarted) == before, "the page is not in the cache")
        #expect(try restarted.get("/v1/documents/\(id)/preview?page=3&width=600").status == 200)
        try? waitUntil("the page to be kept after its answer") { try previews(restarted) != before }
        #expect(try previews(restarted) == before + 1, "rendered again, and kept after its answer")
        kill(restarted.process.processIdentifier, SIGTERM)
        restarted.process.waitUntilExit()
        #expect(try verify(store, database)["clean"] as? Bool == true)
    }

    /// `verify --json`, with whether it exited 0 as `clean`.
    private func verify(_ store: String, _ database: [String]) throws -> [String: Any] {
        let run = try DocPreviewProcess.run(["verify", "--store", store, "--json"] + database)
        var report = run.json ?? [:]
        report["clean"] = run.status == 0
        return report
    }
}
