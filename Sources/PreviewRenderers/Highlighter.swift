import PreviewCore

/// Marks boxes of a page's pixels as a highlighter marks paper: each channel multiplied by a
/// yellow's, so dark text stays dark and white paper turns yellow.
enum Highlighter {
    /// The ink, per channel, out of 255.
    static let ink: (red: Int, green: Int, blue: Int) = (255, 224, 64)

    /// Marks `boxes` (points on a page of `points` size) on packed RGB `pixels` of a `width`×`height`
    /// rendering of that page. Boxes are clamped to the page; ones that are empty, or not finite, mark nothing.
    static func mark(
        _ boxes: [[Double]], on pixels: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int, points: (width: Double, height: Double)
    ) {
        guard points.width > 0, points.height > 0, pixels.count == width * height * 3 else { return }
        let (scaleX, scaleY) = (Double(width) / points.width, Double(height) / points.height)
        for box in boxes.prefix(RenderRequest.maxHighlights) where box.count == 4 && box.allSatisfy(\.isFinite) {
            // Clamped while still doubles: a box is a stranger's PDF's, read back from the index.
            let left = Int(min(max(box[0] * scaleX, 0), Double(width)).rounded(.down))
            let right = Int(min(max(box[2] * scaleX, 0), Double(width)).rounded(.up))
            let top = Int(min(max(box[1] * scaleY, 0), Double(height)).rounded(.down))
            let bottom = Int(min(max(box[3] * scaleY, 0), Double(height)).rounded(.up))
            guard left < right, top < bottom else { continue }
            for row in top..<bottom {
                var at = (row * width + left) * 3
                for _ in left..<right {
                    pixels[at] = UInt8(Int(pixels[at]) * ink.red / 255)
                    pixels[at + 1] = UInt8(Int(pixels[at + 1]) * ink.green / 255)
                    pixels[at + 2] = UInt8(Int(pixels[at + 2]) * ink.blue / 255)
                    at += 3
                }
            }
        }
    }
}
