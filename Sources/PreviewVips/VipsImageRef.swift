internal import CVips
import PreviewCore

/// One reference to a `VipsImage`, released in `deinit`. Images are lazy: pixels are computed
/// when encoded. Use from one task at a time.
package final class VipsImageRef {
    let image: UnsafeMutablePointer<VipsImage>

    /// Takes ownership of a reference returned by a libvips call.
    init(owning image: UnsafeMutablePointer<VipsImage>) {
        self.image = image
    }

    deinit {
        lazy_g_object_unref()(image)
    }

    /// Opens `path` reading only its header, with `load`'s loader and no other.
    /// Throws ``VipsError`` when libvips cannot recognise or parse it, or would read it with another loader.
    package static func header(path: String, load: VipsLoad) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        return try withDeferredModules { () throws(VipsError) in
            try opening(path, load, file: { docpreview_vips_open($0) }, stream: { docpreview_vips_open_source($0) })
        }
    }

    /// A thumbnail that fits in `width`×`height` (never enlarged), made with shrink-on-load,
    /// autorotated by EXIF, in sRGB; the first page or frame of multi-page images. Read with
    /// `load`'s loader and no other.
    package static func thumbnail(path: String, load: VipsLoad, width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        return try withDeferredModules { () throws(VipsError) in
            try opening(
                path, load,
                file: { path in
                    var out: UnsafeMutablePointer<VipsImage>? = nil
                    return docpreview_vips_thumbnail(path, &out, Int32(width), Int32(height)) == 0 ? out : nil
                },
                stream: { source in
                    var out: UnsafeMutablePointer<VipsImage>? = nil
                    return docpreview_vips_thumbnail_source(source, &out, Int32(width), Int32(height)) == 0 ? out : nil
                })
        }
    }

    /// Opens `path` with `load`'s loader and no other, to read its pixels top to bottom once
    /// (`sequential`) or in any order. Pixels are decoded when used; with `strict`, a truncated or
    /// damaged file fails them, else what is missing is filled.
    package static func open(path: String, load: VipsLoad, sequential: Bool, strict: Bool = true) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        return try withDeferredModules { () throws(VipsError) in
            try opening(
                path, load, file: { docpreview_vips_open_access($0, sequential ? 1 : 0, strict ? 1 : 0) },
                stream: { docpreview_vips_open_source($0) })
        }
    }

    /// Opens page `page` of the TIFF at `path` (a level of a pyramid), its tiles read when used.
    package static func tiffPage(path: String, page: Int) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        try VipsLoad.tiff.expect(lazy_vips_foreign_find_load()(path))
        return try owning(docpreview_vips_open_page(path, Int32(page)), "vips_tiffload")
    }

    /// Checks which loader libvips would pick for `path` (only the loaders' magic-number tests run),
    /// then opens it from the path or from a stream of its bytes, as `load` says.
    private static func opening(
        _ path: String, _ load: VipsLoad,
        file: (String) -> UnsafeMutablePointer<VipsImage>?,
        stream: (UnsafeMutablePointer<VipsSource>) -> UnsafeMutablePointer<VipsImage>?
    )
        throws(VipsError) -> VipsImageRef
    {
        if load.fromStream {
            guard let source = lazy_vips_source_new_from_file()(path) else { throw VipsError(function: "vips_source_new_from_file") }
            defer { lazy_g_object_unref()(source) }
            try load.expect(lazy_vips_foreign_find_load_source()(source))
            return try owning(stream(source), "vips_image_new_from_source")
        }
        try load.expect(lazy_vips_foreign_find_load()(path))
        return try owning(file(path), "vips_image_new_from_file")
    }

    /// A JPEG thumbnail like ``thumbnail(path:width:height:)``, but decoded at 1/`shrink` of its size
    /// by libjpeg (1, 2, 4 or 8), then resized to fit `width`×`height`. vips_thumbnail keeps a factor
    /// of two for its final resize and so decodes up to twice as many pixels each way.
    package static func jpegThumbnail(path: String, shrink: Int, width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        try VipsLoad.jpeg.expect(lazy_vips_foreign_find_load()(path))
        var decoded: UnsafeMutablePointer<VipsImage>? = nil
        try VipsError.check(docpreview_vips_jpegload_shrunk(path, &decoded, Int32(shrink)), "vips_jpegload")
        let source = try VipsImageRef.owning(decoded, "vips_jpegload")
        var out: UnsafeMutablePointer<VipsImage>? = nil
        try VipsError.check(docpreview_vips_thumbnail_image(source.image, &out, Int32(width), Int32(height)), "vips_thumbnail_image")
        return try VipsImageRef.owning(out, "vips_thumbnail_image")
    }

    /// Runs `open` again once the modules ``Vips/deferModules()`` held back are loaded, when libvips
    /// had no loader for the file the first time (HEIC, AVIF, JPEG XL, BMP, ICO…).
    private static func withDeferredModules(_ open: () throws(VipsError) -> VipsImageRef) throws(VipsError) -> VipsImageRef {
        do {
            return try open()
        } catch  where error.isUnrecognised && Vips.loadDeferredModules() {
            return try open()
        }
    }

    package var width: Int { Int(lazy_vips_image_get_width()(image)) }
    package var height: Int { Int(lazy_vips_image_get_height()(image)) }
    package var bands: Int { Int(lazy_vips_image_get_bands()(image)) }
    package var hasAlpha: Bool { lazy_vips_image_hasalpha()(image) != 0 }
    /// Pages (or animation frames) the file holds.
    package var pageCount: Int { Int(lazy_vips_image_get_n_pages()(image)) }
    /// The libvips loader that read the file, e.g. `jpegload`.
    package var loader: String? {
        var value: UnsafePointer<CChar>? = nil
        guard lazy_vips_image_get_typeof()(image, "vips-loader") != 0, lazy_vips_image_get_string()(image, "vips-loader", &value) == 0,
            let value
        else { return nil }
        return String(cString: value)
    }
    /// The EXIF orientation tag (1–8); 1 when absent.
    package var orientation: Int {
        var value: Int32 = 1
        return lazy_vips_image_get_typeof()(image, "orientation") != 0 && lazy_vips_image_get_int()(image, "orientation", &value) == 0
            ? Int(value) : 1
    }

    /// 8-bit sRGB (or sRGB with alpha), whatever the source: CMYK, 16-bit, greyscale.
    package func inSRGB() throws(VipsError) -> VipsImageRef {
        let interpretation = lazy_vips_image_guess_interpretation()(image)
        var result = self
        if interpretation != VIPS_INTERPRETATION_sRGB || bands < 3 {
            result = try result.apply("vips_colourspace") { docpreview_vips_colourspace(result.image, &$0, VIPS_INTERPRETATION_sRGB) }
        }
        if lazy_vips_image_get_format()(result.image) != VIPS_FORMAT_UCHAR {
            result = try result.apply("vips_cast") { docpreview_vips_cast_uchar(result.image, &$0) }
        }
        return result
    }

    /// Alpha composited over white (JPEG has no alpha).
    package func flattened() throws(VipsError) -> VipsImageRef {
        guard hasAlpha else { return self }
        return try apply("vips_flatten") { docpreview_vips_flatten_white(image, &$0) }
    }

    /// Decodes the whole image into 8-bit interleaved pixels (for checks and hand-offs; images
    /// from untrusted files should be thumbnails by now).
    package func pixels() throws(VipsError) -> PixelBuffer {
        let image = try inSRGB()
        var length = 0
        guard let memory = lazy_vips_image_write_to_memory()(image.image, &length) else {
            throw VipsError(function: "vips_image_write_to_memory")
        }
        defer { lazy_g_free()(memory) }
        let bytes = Array(UnsafeRawBufferPointer(start: memory, count: length))
        return PixelBuffer(width: image.width, height: image.height, bands: image.bands, bytes: bytes)
    }

    /// Encodes with fixed settings and no metadata: the same pixels always give the same bytes.
    package func encoded(as format: RenderRequest.Format, quality: Int) throws(VipsError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer? = nil
        var length = 0
        let result: Int32
        switch format {
        case .jpeg: result = docpreview_vips_jpegsave(image, &buffer, &length, Int32(quality))
        case .png: result = docpreview_vips_pngsave(image, &buffer, &length)
        case .webp: result = docpreview_vips_webpsave(image, &buffer, &length, Int32(quality))
        }
        defer { lazy_g_free()(buffer) }
        try VipsError.check(result, "vips_\(format.rawValue)save_buffer")
        guard let buffer else { throw VipsError(function: "vips_\(format.rawValue)save_buffer") }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Turned upright as its EXIF orientation says (the tag is then removed).
    package func autorotated() throws(VipsError) -> VipsImageRef {
        guard orientation != 1 else { return self }
        return try apply("vips_autorot") { docpreview_vips_autorot(image, &$0) }
    }

    /// The `width`×`height` area at (`x`, `y`).
    package func extracted(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        try apply("vips_extract_area") { docpreview_vips_extract_area(image, &$0, Int32(x), Int32(y), Int32(width), Int32(height)) }
    }

    /// Scaled to exactly `width`×`height` (lanczos3 down, bicubic-like up), whatever the rounding.
    package func resized(width: Int, height: Int) throws(VipsError) -> VipsImageRef {
        var result = self
        if width != self.width || height != self.height {
            let (horizontal, vertical) = (Double(width) / Double(self.width), Double(height) / Double(self.height))
            result = try apply("vips_resize") { docpreview_vips_resize(image, &$0, horizontal, vertical) }
        }
        if result.width > width || result.height > height {
            let larger = result
            result = try larger.extracted(x: 0, y: 0, width: min(width, larger.width), height: min(height, larger.height))
        }
        if result.width < width || result.height < height {
            let smaller = result
            result = try smaller.apply("vips_embed") { docpreview_vips_embed_copying(smaller.image, &$0, Int32(width), Int32(height)) }
        }
        return result
    }

    /// `text` on one line, `points` high at 72 dpi (a 12-point font at `points` × 6 dpi): a one-band
    /// mask of the glyphs' coverage.
    package static func text(_ text: String, pixels: Int) throws(VipsError) -> VipsImageRef {
        try Vips.start()
        var out: UnsafeMutablePointer<VipsImage>? = nil
        try VipsError.check(docpreview_vips_text(&out, text, Int32(max(1, pixels * 6))), "vips_text")
        return try owning(out, "vips_text")
    }

    /// Turned by `degrees` (positive: clockwise on screen), grown to hold every corner, filled with 0.
    package func rotated(degrees: Double) throws(VipsError) -> VipsImageRef {
        try apply("vips_rotate") { docpreview_vips_rotate(image, &$0, degrees) }
    }

    /// Flipped left to right.
    package func mirrored() throws(VipsError) -> VipsImageRef {
        try apply("vips_flip") { docpreview_vips_flip_horizontal(image, &$0) }
    }

    /// Turned clockwise by `degrees` (90, 180 or 270; anything else leaves it as it is).
    package func rotated(clockwise degrees: Int) throws(VipsError) -> VipsImageRef {
        let quarters = ((degrees % 360 + 360) % 360) / 90
        guard quarters != 0, degrees % 90 == 0 else { return self }
        return try apply("vips_rot") { docpreview_vips_rot(image, &$0, Int32(quarters)) }
    }

    /// In shades of gray (one band).
    package func grayed() throws(VipsError) -> VipsImageRef {
        try apply("vips_colourspace") { docpreview_vips_colourspace(image, &$0, VIPS_INTERPRETATION_B_W) }
    }

    /// Black below mid-gray, else white (of a one-band image).
    package func thresholded() throws(VipsError) -> VipsImageRef {
        try apply("vips_relational_const1") { docpreview_vips_at_least(image, &$0, 128) }
    }

    /// Writes a pyramidal TIFF of this image to `path`: `tile`² JPEG tiles at `quality`, each level
    /// half the one before, no metadata.
    package func writePyramid(to path: String, tile: Int, quality: Int) throws(VipsError) {
        try VipsError.check(docpreview_vips_pyramid_save(image, path, Int32(tile), Int32(quality)), "vips_tiffsave")
    }

    private func apply(_ function: String, _ operation: (inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws(VipsError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>? = nil
        try VipsError.check(operation(&out), function)
        return try VipsImageRef.owning(out, function)
    }

    private static func owning(_ out: UnsafeMutablePointer<VipsImage>?, _ function: String) throws(VipsError) -> VipsImageRef {
        guard let out else { throw VipsError(function: function) }
        return VipsImageRef(owning: out)
    }
}
