/// What to render: which page, into which box, encoded how. The same request for the same
/// bytes always yields the same output bytes.
public struct RenderRequest: Sendable, Hashable, Codable {
    /// Output encodings.
    public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
        case jpeg, png, webp

        package var mime: String { "image/\(rawValue)" }
        package var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
    }

    /// 1-based page (PDF); other kinds ignore it.
    package var page: Int
    /// Bounding box; nil sides are unconstrained. With neither, the kind's default applies
    /// (a 512 px thumbnail; PDF pages 1024 px wide).
    package var width: Int?
    package var height: Int?
    package var format: Format
    /// Encoder quality for JPEG and WebP, 1–100.
    package var quality: Int
    /// A part of the image or page at full size instead of the whole (zoom): the box is then its
    /// output size, and `width` and `height` are not used. Nil (the whole) is left out of the cache key.
    public var region: ImageRegion?
    /// Boxes (left, top, right, bottom in points on the page as displayed) marked on a whole PDF
    /// page as a highlighter would: a search's hits. Nil (none) is left out of the cache key.
    package var highlights: [[Double]]?
    /// For a video: the frame shown at this time (seconds) instead of the one the opening's rule
    /// chooses (a poster chosen among its plays). Nil is left out of the cache key.
    package var frameSeconds: Double?
    /// A text burned into the render's pixels (a share's recipient). Nil is left out of the cache key.
    public var watermark: Watermark?
    /// Boxes painted out in black before the watermark: what a share's redaction hides, as fractions
    /// (0–1) of the whole picture's width and height (left, top, right, bottom). Nil is left out of
    /// the cache key.
    package var redactions: [[Double]]?
    /// For a region whose marks (a watermark, redactions) are laid out on the whole picture: the whole
    /// picture's size in the region's coordinates (a zoom's full size). Nil is left out of the cache key.
    package var canvas: Canvas?

    /// A whole picture's size.
    package struct Canvas: Sendable, Hashable, Codable {
        package var width: Int
        package var height: Int

        package init(width: Int, height: Int) {
            (self.width, self.height) = (width, height)
        }
    }

    /// Whether anything is drawn over the rendered pixels before they are encoded.
    package var isMarked: Bool { watermark != nil || redactions != nil }

    /// Where the whole picture lies in a `width`×`height` render of this request, in its output
    /// pixels: the whole picture's size at the render's scale, and the render's top-left corner in it
    /// (a region's, of a picture of ``canvas`` size; the render itself when it is the whole).
    package func wholePicture(width: Int, height: Int) -> (width: Double, height: Double, x: Double, y: Double) {
        guard let region else { return (Double(width), Double(height), 0, 0) }
        let scale = region.scale
        return (
            Double(canvas?.width ?? region.width) * scale.x, Double(canvas?.height ?? region.height) * scale.y,
            Double(region.x) * scale.x, Double(region.y) * scale.y
        )
    }

    /// The most boxes one page is highlighted with.
    package static let maxHighlights = 2_000

    public init(page: Int = 1, width: Int? = nil, height: Int? = nil, format: Format = .jpeg, quality: Int = 80) {
        self.page = page
        self.width = width
        self.height = height
        self.format = format
        self.quality = quality
    }

    /// Fits in 512×512: lists and grids.
    package static let thumbnail = RenderRequest(width: 512, height: 512)
    /// Fits in 2048×2048: the full-screen viewer.
    package static let preview = RenderRequest(width: 2048, height: 2048)

    /// The longest edge any render may produce (DESIGN §9).
    package static let maxEdge = 4096
    /// Default box side for images and video frames.
    package static let defaultEdge = 512
    /// Default width of a PDF page.
    package static let defaultPageWidth = 1024

    /// The box sides a server renders: a requested side is rounded up to the next of these, so a
    /// client cannot make a new derivative (and a new render) out of every width from 1 to 4096.
    package static let servedEdges = [128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096]

    /// This request with its sides rounded up to ``servedEdges``.
    package var onServedEdges: RenderRequest {
        var request = self
        func step(_ side: Int?) -> Int? { side.map { side in Self.servedEdges.first { $0 >= side } ?? Self.maxEdge } }
        request.width = step(width)
        request.height = step(height)
        return request
    }

    /// The bounding box, with missing sides resolved (`defaultEdge` when neither is given).
    package func box(defaultEdge: Int) -> (width: Int, height: Int) {
        switch (width, height) {
        case let (w?, h?): (w, h)
        case let (w?, nil): (w, Self.maxEdge)
        case let (nil, h?): (Self.maxEdge, h)
        case (nil, nil): (defaultEdge, defaultEdge)
        }
    }

    /// Output size for a source of `width`×`height` scaled to fit this request's box.
    /// - Parameters:
    ///   - upscale: whether a source smaller than the box may grow (vector pages may; pixels may not).
    ///   - defaultEdge: the box side when the request names neither width nor height.
    package func fitted(
        width sourceWidth: Double, height sourceHeight: Double, upscale: Bool,
        defaultEdge: Int = RenderRequest.defaultEdge
    ) -> (width: Int, height: Int) {
        guard sourceWidth > 0, sourceHeight > 0 else { return (1, 1) }
        let box = box(defaultEdge: defaultEdge)
        var scale = min(Double(box.width) / sourceWidth, Double(box.height) / sourceHeight)
        scale = min(scale, Double(Self.maxEdge) / max(sourceWidth, sourceHeight))
        if !upscale { scale = min(scale, 1) }
        return (max(1, Int((sourceWidth * scale).rounded())), max(1, Int((sourceHeight * scale).rounded())))
    }
}
