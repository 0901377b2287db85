extension Redaction {
    /// Paints `boxes` (fractions of the whole picture: left, top, right, bottom) solid black into
    /// packed RGB `pixels` of a `width`×`height` render whose whole picture lies at `whole`
    /// (``RenderRequest/wholePicture(width:height:)``). A box is widened to whole pixels outwards;
    /// one not finite paints the whole render (a box that cannot be placed must not leave its words showing).
    package static func paint(
        _ boxes: [[Double]], into pixels: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int,
        whole: (width: Double, height: Double, x: Double, y: Double)
    ) {
        guard pixels.count == width * height * 3 else { return }
        let (fullWidth, fullHeight, originX, originY) = whole
        for box in boxes {
            var (left, top, right, bottom) = (0, 0, width, height)
            if box.count == 4, box.allSatisfy(\.isFinite) {
                // Clamped while still doubles: the boxes come from a stranger's page.
                func column(_ fraction: Double, _ rounding: FloatingPointRoundingRule) -> Int {
                    Int(min(max(fraction * fullWidth - originX, 0), Double(width)).rounded(rounding))
                }
                func row(_ fraction: Double, _ rounding: FloatingPointRoundingRule) -> Int {
                    Int(min(max(fraction * fullHeight - originY, 0), Double(height)).rounded(rounding))
                }
                (left, top, right, bottom) = (column(box[0], .down), row(box[1], .down), column(box[2], .up), row(box[3], .up))
            }
            guard left < right, top < bottom else { continue }
            for line in top..<bottom {
                let start = (line * width + left) * 3
                for at in start..<(start + (right - left) * 3) { pixels[at] = 0 }
            }
        }
    }
}
