import PreviewCore
import PreviewVips
import Synchronization

/// The stamps of ``Watermark``s: the text drawn by libvips (Pango and the system's DejaVu Sans
/// Bold), turned, read back as a coverage mask. A child keeps the last few, so the tiles of one
/// zoom level and the pages of one share draw their text once.
enum WatermarkStamps {
    /// A stamp's coverage, one byte a pixel, `width` wide.
    struct Stamp: Sendable {
        let mask: [UInt8]
        let width: Int
        var height: Int { mask.count / width }
    }

    private struct Key: Hashable {
        let text: String
        let pixels: Int
    }

    private static let kept = Mutex<[Key: Stamp]>([:])
    private static let keptLimit = 32
    /// The tallest text drawn: a larger render (a deep zoom's tiles) repeats it more often, so a
    /// tile of 512 px always crosses some of it.
    static let maxPixels = 64

    /// Burns `watermark` into packed RGB `pixels` of a `width`×`height` render whose whole picture
    /// lies at `whole` (``RenderRequest/wholePicture(width:height:)``).
    static func burn(
        _ watermark: Watermark, into pixels: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int,
        whole: (width: Double, height: Double, x: Double, y: Double)
    ) throws(PreviewError) {
        let (stamp, layout) = try laidOut(watermark, whole: whole)
        Watermark.burn(stamp.mask, stampWidth: stamp.width, into: pixels, width: width, height: height, layout: layout)
    }

    /// The mark `watermark` lays over every frame of a `width`×`height` film.
    static func frameMark(_ watermark: Watermark, width: Int, height: Int) throws(PreviewError) -> FrameMark {
        let (stamp, layout) = try laidOut(watermark, whole: (Double(width), Double(height), 0, 0))
        return FrameMark(stamp.mask, stampWidth: stamp.width, width: width, height: height, layout: layout)
    }

    /// The stamp of `watermark` at its size over a whole picture at `whole`, and where it repeats.
    private static func laidOut(
        _ watermark: Watermark, whole: (width: Double, height: Double, x: Double, y: Double)
    ) throws(PreviewError) -> (Stamp, Watermark.Layout) {
        let fontPixels = min(watermark.fontPixels(whole: whole), maxPixels)
        let stamp = try stamp(watermark.text, pixels: fontPixels)
        return (stamp, watermark.layout(whole: whole, fontPixels: fontPixels, stamp: (stamp.width, stamp.height)))
    }

    private static func stamp(_ text: String, pixels: Int) throws(PreviewError) -> Stamp {
        let key = Key(text: String(text.prefix(Watermark.maxText)), pixels: pixels)
        if let known = kept.withLock({ $0[key] }) { return known }
        let drawn: PixelBuffer
        do {
            drawn = try VipsImageRef.text(key.text, pixels: pixels).rotated(degrees: -Watermark.angle).pixels()
        } catch {
            throw PreviewError(.internal, "The watermark could not be drawn.", detail: error.description)
        }
        // One band of coverage; should a font come back in colour, its first band.
        let mask = drawn.bands == 1 ? drawn.bytes : stride(from: 0, to: drawn.bytes.count, by: drawn.bands).map { drawn.bytes[$0] }
        let stamp = Stamp(mask: mask, width: drawn.width)
        kept.withLock { kept in
            if kept.count >= keptLimit { kept.removeAll() }
            kept[key] = stamp
        }
        return stamp
    }
}
