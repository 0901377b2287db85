/// A part of an image or page at its full size, scaled and turned: what a zoom (IIIF) request asks
/// for once it is resolved and checked. Coordinates are full-size pixels; for a page, pixels at
/// ``pageDPI``.
public struct ImageRegion: Sendable, Hashable, Codable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int
    /// The region's size once scaled, before it is turned.
    package var outputWidth: Int
    package var outputHeight: Int
    /// Clockwise quarter turns in degrees (0, 90, 180, 270), after ``mirrored``.
    package var rotation: Int
    /// Flipped left to right, before turning.
    package var mirrored: Bool
    package var tone: Tone
    /// For a page: the resolution its full size is given at. Nil for images.
    package var pageDPI: Int?
    /// The file is our tiled pyramid (``RenderCall`` `pyramid`): its pages are the image halved
    /// again and again, and a region is cut from the smallest one that still has its detail.
    public var fromPyramid: Bool

    public init(
        x: Int, y: Int, width: Int, height: Int, outputWidth: Int, outputHeight: Int, rotation: Int = 0, mirrored: Bool = false,
        tone: Tone = .color, pageDPI: Int? = nil, fromPyramid: Bool = false
    ) {
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

    /// The longest side of an image that regions are cut from, in pixels (16,777,216: a page of
    /// 2,000 m at 600 dpi). Bounding it first keeps every product of a region's numbers (a stranger's
    /// `pct:` and sizes included) far inside `Int`.
    package static let maxSide = 1 << 24
    /// The side of the tiles a zoom client is told to ask for (IIIF `tiles.width`), and of a pyramid's.
    package static let zoomTile = 512

    /// Output pixels per pixel of the whole image, across and down.
    package var scale: (x: Double, y: Double) {
        (Double(outputWidth) / Double(max(1, width)), Double(outputHeight) / Double(max(1, height)))
    }

    /// A page's full size in pixels at `dpi`, from its size in points; nil when a side is not a
    /// number, negative or longer than ``maxSide`` (a page box a stranger made absurd).
    public static func pageSize(points: (width: Double, height: Double), dpi: Int) -> (width: Int, height: Int)? {
        let (width, height) = (points.width * Double(dpi) / 72, points.height * Double(dpi) / 72)
        let sides = 0...Double(maxSide)
        guard sides.contains(width), sides.contains(height) else { return nil }
        return (max(1, Int(width.rounded())), max(1, Int(height.rounded())))
    }

    /// The refusal of a page whose size ``pageSize(points:dpi:)`` does not give.
    package static func pageTooLarge(points: (width: Double, height: Double), dpi: Int) -> PreviewError {
        PreviewError(
            .tooManyPixels,
            "The page is \(points.width)×\(points.height) pt: too large to zoom at \(dpi) dpi "
                + "(at most \(maxSide) pixels a side).")
    }
}
