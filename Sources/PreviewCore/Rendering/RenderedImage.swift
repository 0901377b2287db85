/// An encoded preview and what was learned while making it.
public struct RenderedImage: Sendable {
    package var bytes: [UInt8]
    package var format: RenderRequest.Format
    package var width: Int
    package var height: Int
    package var facts: MediaFacts

    package init(bytes: [UInt8], format: RenderRequest.Format, width: Int, height: Int, facts: MediaFacts) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.facts = facts
    }
}

/// Facts for a document's detail page. Dimensions are as displayed (after rotation).
public struct MediaFacts: Sendable, Equatable, Codable {
    public var width: Int?
    public var height: Int?
    package var pages: Int?
    package var durationSeconds: Double?
    package var codec: String?
    /// Clockwise degrees applied for display (EXIF orientation, video display matrix, PDF /Rotate).
    package var rotation: Int?
    /// For video thumbnails: the timestamp of the frame chosen, in seconds…
    package var frameSeconds: Double?
    /// …and how well it serves as a poster, 0–1 (``FrameQuality/score``)…
    package var posterScore: Double?
    /// …and, when the poster was chosen among the plays of a highlight reel (after they were
    /// indexed), the number of its play (1-based); nil for the opening's rule.
    package var posterPlay: Int?
    /// Sheets of a spreadsheet, slides of a presentation (their pages are in `pages`).
    package var sheets: Int?
    package var slides: Int?
    /// For videos: whether the original plays in the apps' players, or what a rendition must do.
    package var playback: Playback?

    public init(
        width: Int? = nil, height: Int? = nil, pages: Int? = nil, durationSeconds: Double? = nil,
        codec: String? = nil, rotation: Int? = nil, frameSeconds: Double? = nil
    ) {
        self.width = width
        self.height = height
        self.pages = pages
        self.durationSeconds = durationSeconds
        self.codec = codec
        self.rotation = rotation
        self.frameSeconds = frameSeconds
    }

    enum CodingKeys: String, CodingKey {
        case width, height, pages, codec, rotation, sheets, slides, playback
        case durationSeconds = "duration_s"
        case frameSeconds = "frame_s"
        case posterScore = "poster_score"
        case posterPlay = "poster_play"
    }
}

/// Makes previews of one family of kinds. Each call is a pure function of (file, request):
/// no hidden state beyond bounded caches, so renders can move to a child process or be cached.
public protocol Renderer: Sendable {
    /// Names this renderer's behaviour and the libraries behind it; part of every derivative's
    /// cache key, so an upgrade re-renders exactly what it affects.
    var version: String { get }
    /// Facts about the file without rendering (page count, duration, dimensions).
    func probe(_ path: String) throws(PreviewError) -> MediaFacts
    /// Facts about page `page` of the file (its size; a paged kind's page may differ from the first).
    func probe(_ path: String, page: Int) throws(PreviewError) -> MediaFacts
    /// Renders the request. Throws a `PreviewError` with a stable code.
    func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage
}

extension Renderer {
    /// Kinds without pages: the file's facts.
    public func probe(_ path: String, page: Int) throws(PreviewError) -> MediaFacts {
        try probe(path)
    }
}
