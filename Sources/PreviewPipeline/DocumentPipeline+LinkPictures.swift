import Foundation
import PreviewCore
import PreviewRenderers

/// The pictures of links' cards: a thumbnail made from a fetched file that is not stored.
extension DocumentPipeline {
    /// The thumbnail (``RenderRequest/thumbnail``) of the file at `path`, by the kind its bytes
    /// say, made by the same sandboxed renderers and limits as any upload's; with `imagesOnly`, a
    /// file that is not an image is refused (`unsupported_type`). Returns the kind too.
    package func linkThumbnail(ofFileAt path: String, imagesOnly: Bool) async throws(PreviewError) -> (kind: FileKind, image: RenderedImage) {
        let detection: Detection
        do {
            detection = try await offload.run(.reads) { ContentDetector.detect(try ByteProbe(contentsOf: URL(fileURLWithPath: path))) }
        } catch {
            throw PreviewError(.internal, "The fetched file could not be read (\(error)).")
        }
        let kind = detection.kind
        if imagesOnly && kind.category != .image {
            throw PreviewError(.unsupportedType, "The picture is not an image (its bytes are \(kind.label)).")
        }
        guard kind.category != .executable, !Renderers.needsPivot(kind), let renderer = renderers.renderer(for: kind, on: offload) else {
            throw PreviewError(.unsupportedType, "No preview is made of a linked \(kind.label).")
        }
        return (kind, try await renderer.render(path, normalized(.thumbnail, kind)))
    }
}
