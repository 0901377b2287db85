import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers

extension DocumentPipeline {
    /// Cuts the part `span` of the video `document` by stream copy (``VideoClipping``) into an MP4
    /// in the staging folder, in a renderer child; the caller stores the file and removes it.
    package func clip(of document: Document, span: MediaSpan) async throws(PreviewError) -> (file: URL, clip: VideoClipping.Clip) {
        guard document.kind.category == .video else {
            throw PreviewError(.noVideoStream, "\(document.kind.label) has no video to clip.")
        }
        let source = try await localPath(of: document.sha256)
        let file = store.blobs.stagingFolder.appendingPathComponent("clip-\(UUID().uuidString).mp4")
        do {
            let clip = try await renderers.playback.clip(source, kind: document.kind, span: span, into: file.path, on: offload)
            return (file, clip)
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }
}
