/// A part of an image or page at its full size, scaled and turned: what a zoom (IIIF) request asks
/// for once it is resolved and checked. Coordinates are full-size pixels; for a page, pixels at
/// ``pageDPI``.
public struct ImageRegion: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    /// The region's size once scaled, before it is turned.
    public var outputWidth: Int
    public var outputHeight: Int
    /// Clockwise quarter turns in degrees (0, 90, 180, 270), after ``mirrored``.
    public var rotation: Int
    /// Flipped left to right, before turning.
    public var mirrored: Bool
    public var tone: Tone
    /// For a page: the resolution its full size is given at. Nil for images.
    public var pageDPI: Int?
    /// The file is our tiled pyramid (``RenderCall`` `pyramid`): its pages are the image halved
    /// again and again, and a region is cut from the smallest one that still has its detail.
    public var fromPyramid: Bool

    public init(x: Int, y: Int, width: Int, height: Int, outputWidth: Int, outputHeight: Int, rotation: Int = 0, mirrored: Bool = false,
                tone: Tone = .color, pageDPI: Int? = nil, fromPyramid: Bool = false) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.rotation = rotation
        self.mirrored = mirrored
        self.tone = tone
        self.pageDPI = pageDPI
        self.fromPyramid = fromPyramid
    }

    /// Colours as they are, shades of gray, or black and white only.
    public enum Tone: String, Sendable, Hashable, Codable {
        case color, gray, bitonal
    }

    /// A page's full size in pixels at `dpi`, from its size in points.
    public static func pageSize(points: (width: Double, height: Double), dpi: Int) -> (width: Int, height: Int) {
        (max(1, Int((points.width * Double(dpi) / 72).rounded())), max(1, Int((points.height * Double(dpi) / 72).rounded())))
    }
}
