import PreviewCore

/// The renderer for each kind that has previews.
public struct Renderers: Sendable {
    public var video: VideoRenderer
    public var pdf: PDFRenderer
    public var image: ImageRenderer
    /// When set, probes and renders run in its child processes instead of this one.
    public var isolation: RendererPool?

    /// - Parameters:
    ///   - openDocuments: PDFs kept open between renders (for long-running processes; 0 for none).
    ///   - isolation: child processes to render in (`batch`, `serve`, `worker`); nil renders here.
    public init(limits: Limits = Limits(), openDocuments: Int = 0, isolation: RendererPool? = nil) {
        video = VideoRenderer(limits: limits)
        pdf = PDFRenderer(documents: openDocuments > 0 ? PDFDocumentCache(capacity: openDocuments) : nil)
        image = ImageRenderer(limits: limits)
        self.isolation = isolation
    }

    /// The renderer for `kind`, or nil when the kind has no previews.
    public func renderer(for kind: FileKind) -> (any Renderer)? {
        let local: any Renderer
        switch kind.category {
        case .video, .audio: local = video.reading(kind)
        case .pdf: local = pdf
        case .image: local = image.reading(kind)
        case .office, .text, .archive, .executable, .other: return nil
        }
        guard let isolation else { return local }
        return IsolatedRenderer(local: local, kind: kind, pool: isolation)
    }
}
