import Foundation
import PreviewCore

/// A page as a phone photographs it, made from its clean pixels: turned a few degrees, softened,
/// and shaded from one side (the light of a desk lamp), for OCR's tests.
package enum PhonePhoto {
    /// `page` (RGB) turned `degrees` clockwise about its centre (the corners brought in white),
    /// blurred by two 3×3 box passes, and darkened to `shade` of its brightness at the right edge.
    package static func make(from page: PixelBuffer, degrees: Double, shade: Double = 0.6) -> PixelBuffer {
        precondition(page.bands == 3, "an RGB page")
        let (width, height) = (page.width, page.height)
        let radians = degrees * .pi / 180
        let (s, c) = (sin(radians), cos(radians))
        let (cx, cy) = (Double(width) / 2, Double(height) / 2)
        var gray = [Double](repeating: 255, count: width * height)
        func source(_ x: Int, _ y: Int) -> Double {
            guard x >= 0, y >= 0, x < width, y < height else { return 255 }
            let i = (y * width + x) * 3
            return (Double(page.bytes[i]) * 0.299 + Double(page.bytes[i + 1]) * 0.587 + Double(page.bytes[i + 2]) * 0.114)
        }
        for y in 0..<height {
            for x in 0..<width {
                // Where this pixel of the turned photo was on the page (the inverse turn), bilinear.
                let dx = Double(x) - cx, dy = Double(y) - cy
                let sx = cx + dx * c + dy * s, sy = cy - dx * s + dy * c
                let (x0, y0) = (Int(sx.rounded(.down)), Int(sy.rounded(.down)))
                let (fx, fy) = (sx - Double(x0), sy - Double(y0))
                let top = source(x0, y0) * (1 - fx) + source(x0 + 1, y0) * fx
                let bottom = source(x0, y0 + 1) * (1 - fx) + source(x0 + 1, y0 + 1) * fx
                gray[y * width + x] = top * (1 - fy) + bottom * fy
            }
        }
        for _ in 0..<2 { gray = boxBlurred(gray, width: width, height: height) }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let light = 1 - (1 - shade) * Double(x) / Double(max(1, width - 1))
                let value = UInt8(max(0, min(255, gray[y * width + x] * light)))
                let i = (y * width + x) * 3
                (bytes[i], bytes[i + 1], bytes[i + 2]) = (value, value, value)
            }
        }
        return PixelBuffer(width: width, height: height, bands: 3, bytes: bytes)
    }

    private static func boxBlurred(_ gray: [Double], width: Int, height: Int) -> [Double] {
        var out = gray
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                var sum = 0.0
                for ny in (y - 1)...(y + 1) { for nx in (x - 1)...(x + 1) { sum += gray[ny * width + nx] } }
                out[y * width + x] = sum / 9
            }
        }
        return out
    }
}
