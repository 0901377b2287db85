import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers

extension DocumentService {
    /// A clip of the video `id` from `span.start` to `span.end` seconds, cut by stream copy: a new
    /// document of the same owner, type and school titled `title` (by default the video's title
    /// with the span), or, `asVersion`, the video's next version. Queued like an upload.
    package func clip(_ id: String, span: MediaSpan, title: String?, asVersion: Bool) async throws -> (
        document: Document, job: JobRecord, clip: VideoClipping.Clip
    ) {
        let source = try await document(id: id)
        let (file, clip) = try await pipeline.clip(of: source, span: span)
        defer { try? FileManager.default.removeItem(at: file) }
        let blobs = store.blobs
        let writer = try await offload.run(.writes) { try blobs.stage(fileAt: file) }
        let named = title.map(DocumentLabels.title).flatMap { $0.isEmpty ? nil : $0 }
        let labels = DocumentLabels(
            owner: source.owner, type: source.type.flatMap(rules.type(id:)),
            title: asVersion ? source.title : named ?? "\(source.title) (\(Self.clock(clip.start))–\(Self.clock(clip.end)))",
            filename: "clip.mp4", description: asVersion ? source.description : "", school: source.school)
        let accepted = try await accept(writer, labels: labels)
        return (accepted.document, accepted.job, clip)
    }

    /// `m:ss.s` for a clip's title.
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((max(0, seconds) * 10).rounded())
        return String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
    }
}
