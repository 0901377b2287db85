import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewRenderers

/// `POST /v1/documents/{id}/clips` `{"start", "end", "title"?, "version"?}`: a frame-exact part of a
/// video cut by stream copy (never re-encoded) into a new document, or the video's next version
/// with `"version": true`; answered 202 like an upload, with what the clip shows. Admitted like an
/// upload: with too many documents waiting, 429 (`queue_full`) with `Retry-After` before anything is cut.
struct ClipsController {
    let documents: DocumentService
    let intake: UploadIntake

    struct Asked: Decodable {
        var start: Double
        var end: Double
        var title: String?
        var version: Bool?
    }

    struct Made: Encodable {
        var status: JobRecord.Status
        var documentID: String
        var jobID: Int64
        var sha256: String
        var clip: Shown
    }

    /// The clip's first frame and the end of its last, in seconds of the video it was cut from.
    struct Shown: Encodable {
        var start: Double
        var end: Double
        var durationS: Double
        var keyframe: Double
        var size: Int
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/documents/:id/clips") { request, context in
            let id = try context.parameters.require("id")
            let asked = try await JSON.body(Asked.self, of: request, limit: 16 * 1024, expected: #"{"start", "end", "title"?, "version"?}"#)
            try await intake.admitQueued()
            let made = try await documents.clip(
                id, span: MediaSpan(start: asked.start, end: asked.end), title: asked.title, asVersion: asked.version ?? false)
            let clip = made.clip
            let body = Made(
                status: made.document.jobStatus ?? .queued, documentID: made.document.id, jobID: made.job.id ?? 0,
                sha256: made.document.sha256.hex,
                clip: Shown(start: clip.start, end: clip.end, durationS: clip.durationSeconds, keyframe: clip.keyframe, size: clip.size))
            return try JSON.response(body, status: .accepted, headers: [.location: "/v1/documents/\(made.document.id)"])
        }
    }
}
