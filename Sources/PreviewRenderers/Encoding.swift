import CEncoders
import Foundation
import PreviewCore
import PreviewVips

/// The encoding paths: images through libvips (they are libvips images already); decoded pixels
/// (PDF pages, video frames) through libjpeg-turbo, libpng and libwebp directly, so those renders
/// never load libvips.
enum Encoding {
    /// Encodes a libvips image (its ``RenderRequest/redactions`` and ``RenderRequest/watermark``
    /// drawn first, through the pixel encoders: a marked render is flattened on white whatever its format).
    static func encode(_ image: VipsImageRef, _ request: RenderRequest) throws(PreviewError) -> [UInt8] {
        do {
            var image = try image.inSRGB()
            if request.format == .jpeg || request.isMarked { image = try image.flattened() }
            guard request.isMarked else { return try image.encoded(as: request.format, quality: request.quality) }
            // Its decoded pixels are this call's own: marked where they are.
            var pixels = try image.pixels()
            let (width, height) = (pixels.width, pixels.height)
            return try pixels.bytes.withUnsafeMutableBufferPointer { rgb throws(PreviewError) in
                try encode(marking: rgb, width: width, height: height, showing: .photograph, request).bytes
            }
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError(.corrupt, "The image could not be decoded; it may be damaged or truncated.", detail: "\(error)")
        }
    }

    /// The versions of the encoders of decoded pixels, for derivative keys.
    static let pixelEncoders = String(cString: docpreview_encoder_versions())

    /// What decoded pixels show, for the JPEG encoder's Huffman tables: the same pixels either way.
    enum Content {
        /// A video frame or photograph: tables fitted to the image (a second pass over it).
        case photograph
        /// A rendered document page: fixed tables fitted to pages, in one pass.
        case page

        var jpegTables: docpreview_jpeg_tables {
            switch self {
            case .photograph: DOCPREVIEW_JPEG_OPTIMISED
            case .page: DOCPREVIEW_JPEG_PAGE_TABLES
            }
        }
    }

    /// Encodes a decoded video frame, rotated clockwise by `rotation` first.
    static func encode(_ pixels: PixelBuffer, rotation: Int, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        precondition(pixels.bands == 3, "decoded pixels are packed RGB")
        let image = pixels.rotated(clockwise: rotation)
        return try image.bytes.withUnsafeBufferPointer { rgb throws(PreviewError) in
            try encode(rgb: rgb, width: image.width, height: image.height, showing: .photograph, request)
        }
    }

    /// Encodes `width`×`height` packed RGB rows where they are (a video frame's); marks are drawn on a copy.
    static func encode(
        rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, showing content: Content,
        _ request: RenderRequest
    ) throws(PreviewError) -> RenderedImage {
        precondition(rgb.count == width * height * 3, "decoded pixels are packed RGB")
        if request.isMarked {
            var copy = Array(rgb)
            return try copy.withUnsafeMutableBufferPointer { copy throws(PreviewError) in
                try encode(marking: copy, width: width, height: height, showing: content, request)
            }
        }
        return try encodePlain(rgb: rgb, width: width, height: height, showing: content, request)
    }

    /// Encodes `width`×`height` packed RGB rows that are the caller's to draw on (Splash's bitmap of a
    /// page): the request's redactions painted and its watermark burned into them where they are.
    static func encode(
        marking rgb: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int, showing content: Content,
        _ request: RenderRequest
    ) throws(PreviewError) -> RenderedImage {
        precondition(rgb.count == width * height * 3, "decoded pixels are packed RGB")
        let whole = request.wholePicture(width: width, height: height)
        if let boxes = request.redactions { Redaction.paint(boxes, into: rgb, width: width, height: height, whole: whole) }
        if let watermark = request.watermark { try WatermarkStamps.burn(watermark, into: rgb, width: width, height: height, whole: whole) }
        return try encodePlain(rgb: UnsafeBufferPointer(rgb), width: width, height: height, showing: content, request)
    }

    private static func encodePlain(
        rgb: UnsafeBufferPointer<UInt8>, width: Int, height: Int, showing content: Content,
        _ request: RenderRequest
    ) throws(PreviewError) -> RenderedImage {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let quality = Int32(request.quality)
        let status =
            switch request.format {
            case .jpeg: docpreview_encode_jpeg(rgb.baseAddress!, Int32(width), Int32(height), quality, content.jpegTables, &out, &length)
            case .png: docpreview_encode_png(rgb.baseAddress!, Int32(width), Int32(height), &out, &length)
            case .webp: docpreview_encode_webp(rgb.baseAddress!, Int32(width), Int32(height), quality, &out, &length)
            }
        defer { free(out) }
        guard status == 0, let out else {
            throw PreviewError(
                .internal, "The preview could not be encoded.", detail: "\(request.format.rawValue) encoder refused \(width)×\(height)")
        }
        return RenderedImage(
            bytes: Array(UnsafeBufferPointer(start: out, count: length)), format: request.format,
            width: width, height: height, facts: MediaFacts())
    }
}

extension PixelBuffer {
    /// These pixels turned clockwise by `degrees` (0, 90, 180 or 270; anything else is 0).
    func rotated(clockwise degrees: Int) -> PixelBuffer {
        let turns = ((degrees % 360 + 360) % 360) / 90
        guard turns != 0, degrees % 90 == 0 else { return self }
        let (outWidth, outHeight) = turns == 2 ? (width, height) : (height, width)
        var rotated = [UInt8](repeating: 0, count: bytes.count)
        bytes.withUnsafeBufferPointer { source in
            rotated.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        let (tx, ty): (Int, Int)
                        switch turns {
                        case 1: (tx, ty) = (height - 1 - y, x)
                        case 2: (tx, ty) = (width - 1 - x, height - 1 - y)
                        default: (tx, ty) = (y, width - 1 - x)
                        }
                        let from = (y * width + x) * bands, to = (ty * outWidth + tx) * bands
                        for band in 0..<bands { target[to + band] = source[from + band] }
                    }
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, bands: bands, bytes: rotated)
    }
}

extension PixelBuffer {
    /// These pixels flipped left to right.
    func mirrored() -> PixelBuffer {
        var flipped = bytes
        let row = width * bands
        bytes.withUnsafeBufferPointer { source in
            flipped.withUnsafeMutableBufferPointer { target in
                for y in 0..<height {
                    for x in 0..<width {
                        let from = y * row + x * bands, to = y * row + (width - 1 - x) * bands
                        for band in 0..<bands { target[to + band] = source[from + band] }
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, bands: bands, bytes: flipped)
    }

    /// These RGB pixels in gray (BT.601 luma in every band), or `bitonal`: black below mid-gray, else white.
    func grayed(bitonal: Bool = false) -> PixelBuffer {
        var gray = bytes
        gray.withUnsafeMutableBufferPointer { pixels in
            for i in stride(from: 0, to: pixels.count, by: bands) {
                let luma = (299 * Int(pixels[i]) + 587 * Int(pixels[i + 1]) + 114 * Int(pixels[i + 2]) + 500) / 1000
                let value = bitonal ? (luma >= 128 ? 255 : 0) : luma
                for band in 0..<3 { pixels[i + band] = UInt8(value) }
            }
        }
        return PixelBuffer(width: width, height: height, bands: bands, bytes: gray)
    }

    /// These pixels mirrored, turned and grayed as `region` says.
    func shaped(as region: ImageRegion) -> PixelBuffer {
        var image = self
        if region.mirrored { image = image.mirrored() }
        if region.rotation != 0 { image = image.rotated(clockwise: region.rotation) }
        if region.tone != .color { image = image.grayed(bitonal: region.tone == .bitonal) }
        return image
    }
}
