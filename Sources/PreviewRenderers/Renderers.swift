import PreviewCore

/// The renderer for each kind that has previews.
public struct Renderers: Sendable {
    public var video: VideoRenderer
    public var pdf: PDFRenderer
    public var image: ImageRenderer

    public init(limits: Limits = Limits()) {
        video = VideoRenderer(limits: limits)
        pdf = PDFRenderer()
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
