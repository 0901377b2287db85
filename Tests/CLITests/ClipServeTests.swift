import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewTestSupport
import Testing

/// Clips of uploaded videos over HTTP (`serve` on loopback with a token).
@Suite(.blocking) struct ClipServeTests {
    /// `POST /v1/documents/{id}/clips` makes a new video of the same owner and type, or the video's
    /// next version, holding exactly the span asked for; a span it cannot cut is a 400.
    @Test func aClipOfAnUploadedVideoIsANewDocumentOrItsNextVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, token: PlaybackServeTests.token)
        let file = folder.url.appendingPathComponent("game.mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=12", "-f", "lavfi", "-i", "sine=duration=12",
            "-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-pix_fmt", "yuv420p", "-c:a", "aac", file.path
        ])
        let uploaded = try server.upload(Data(contentsOf: file), query: "owner=ana&type=highlight_video&title=Game&filename=game.mp4")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        func clip(_ body: String, of document: String? = nil) throws -> (status: Int, json: [String: Any]?) {
            var request = URLRequest(url: URL(string: server.base + "/v1/documents/\(document ?? id)/clips")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            return try ServerProcess.send(server.authorized(request))
        }

        let made = try clip(#"{"start": 3.5, "end": 7.25}"#)
        #expect(made.status == 202, "\(made)")
        let shown = try #require(made.json?["clip"] as? [String: Double], "\(made)")
        #expect(shown["start"] == 3.5 && shown["end"].map { abs($0 - 7.267) < 0.001 } == true, "\(shown)")
        let clipID = try #require(made.json?["document_id"] as? String)
        let document = try PlaybackServeTests.settled(server, clipID)
        #expect(document["title"] as? String == "Game (0:03.5–0:07.3)" && document["owner"] as? String == "ana", "\(document)")
        #expect(document["type"] as? String == "highlight_video")
        #expect((document["duration_s"] as? Double).map { abs($0 - 3.767) < 0.034 } == true, "\(document)")

        let version = try clip(#"{"start": 0, "end": 2, "version": true}"#)
        #expect(version.status == 202, "\(version)")
        let versions = try server.get("/v1/documents/\(id)/versions").json?["versions"] as? [[String: Any]] ?? []
        #expect(versions.count == 2 && versions.first?["document_id"] as? String == version.json?["document_id"] as? String, "\(versions)")

        for (body, code) in [
            (#"{"start": 5, "end": 5}"#, "bad_request"), (#"{"start": 20, "end": 25}"#, "bad_request"),
            (#"{"start": "x"}"#, "bad_request")
        ] {
            let refused = try clip(body)
            #expect(refused.status == 400 && (refused.json?["error"] as? [String: Any])?["code"] as? String == code, "\(body): \(refused)")
        }
        let missing = try clip(#"{"start": 0, "end": 1}"#, of: "nothing")
        #expect(missing.status == 404)
    }

    /// A clip is admitted as an upload is: with more documents waiting than `--max-queued`, it is
    /// refused (429 `queue_full`, `Retry-After`) before anything is cut.
    @Test func aClipWaitsItsTurnWhenTooManyDocumentsWait() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // No workers: every document stays queued.
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 0, extra: ["--max-queued", "0"], token: PlaybackServeTests.token)
        let file = folder.url.appendingPathComponent("game.mp4")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", file.path])
        let uploaded = try server.upload(Data(contentsOf: file), query: "owner=ana&type=highlight_video&title=Game&filename=game.mp4")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        var request = URLRequest(url: URL(string: server.base + "/v1/documents/\(id)/clips")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"start": 1, "end": 2}"#.utf8)
        // The queue's depth is read at most once a second: until then a clip may still be taken.
        let refused = try waitFor("a clip to be refused", timeout: .seconds(60), interval: .milliseconds(200)) {
            let answer = try ServerProcess.send(server.authorized(request))
            return answer.status == 429 ? answer : nil
        }
        #expect((refused.json?["error"] as? [String: Any])?["code"] as? String == "queue_full", "\(refused)")
    }
}
