import PreviewCore
import PreviewVips

/// The one encoding path for every renderer: libvips image → sRGB 8-bit → (flattened for JPEG) → bytes.
enum Encoding {
    static func encode(_ image: VipsImageRef, _ request: RenderRequest) throws(VipsError) -> [UInt8] {
        var image = try image.inSRGB()
        if request.format == .jpeg { image = try image.flattened() }
        return try image.encoded(as: request.format, quality: request.quality)
    }

    /// Encodes decoded pixels (video frames, PDF pages), rotated clockwise by `rotation` first.
    static func encode(_ pixels: PixelBuffer, rotation: Int, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        do {
            let image = try VipsImageRef(pixels: pixels).rotated(clockwise: rotation)
            return RenderedImage(bytes: try encode(image, request), format: request.format,
                                 width: image.width, height: image.height, facts: MediaFacts())
        } catch {
            throw PreviewError(.internal, "The preview could not be encoded.", detail: error.description)
        }
    }
}
