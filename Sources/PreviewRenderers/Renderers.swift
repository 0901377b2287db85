import PreviewCore

/// The renderer for each kind that has previews.
public struct Renderers: Sendable {
    public var video: VideoRenderer
    public var pdf: PDFRenderer
    public var image: ImageRenderer

    /// - Parameter openDocuments: PDFs kept open between renders (for long-running processes; 0 for none).
    public init(limits: Limits = Limits(), openDocuments: Int = 0) {
        video = VideoRenderer(limits: limits)
        pdf = PDFRenderer(documents: openDocuments > 0 ? PDFDocumentCache(capacity: openDocuments) : nil)
        image = ImageRenderer(limits: limits)
    }

    /// The renderer for `kind`, or nil when the kind has no previews.
    public func renderer(for kind: FileKind) -> (any Renderer)? {
        switch kind.category {
        case .video, .audio: video
        case .pdf: pdf
        case .image: image
        case .office, .text, .archive, .executable, .other: nil
        }
    }
}
