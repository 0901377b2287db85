internal import CPoppler
import PreviewCore

/// One page of a ``PDFDocument`` (`PopplerPage`), loaded on demand; holds a reference to its document.
///
/// Owns the page reference and unrefs it in `deinit`. Same threading rule as the document.
public final class PDFPage {
    let page: OpaquePointer
    /// Keeps the document alive while the page is used.
    private let document: PDFDocument

    init(page: OpaquePointer, document: PDFDocument) {
        self.page = page
        self.document = document
    }

    deinit {
        lazy_g_object_unref()(UnsafeMutableRawPointer(page))
    }

    /// Size in points as displayed: width and height swap for pages with /Rotate 90 or 270.
    public var size: (width: Double, height: Double) {
        var width = 0.0
        var height = 0.0
        lazy_poppler_page_get_size()(page, &width, &height)
        return (width, height)
    }

    /// Rasterises the page on white into exactly `width`×`height` RGB pixels (the caller has
    /// bounded both; nothing larger is ever allocated).
    public func render(width: Int, height: Int) throws(PDFError) -> PixelBuffer {
        let (pointsWide, pointsHigh) = size
        let surface = try CairoSurface(width: width, height: height)
        do {
            let context = try CairoContext(surface: surface)
            lazy_cairo_set_source_rgb()(context.context, 1, 1, 1)
            lazy_cairo_paint()(context.context)
            if pointsWide > 0 && pointsHigh > 0 {
                lazy_cairo_scale()(context.context, Double(width) / pointsWide, Double(height) / pointsHigh)
            }
            lazy_poppler_page_render()(page, context.context)
        }
        return surface.rgbPixels()
    }
}

extension PDFDocument {
    /// Page `number` (1-based), parsed now and only now. Throws when it does not exist.
    public func page(_ number: Int) throws(PDFError) -> PDFPage {
        guard number >= 1, number <= pageCount, let page = lazy_poppler_document_get_page()(document, Int32(number - 1)) else {
            throw PDFError(function: "poppler_document_get_page", reason: .other, message: "no page \(number)")
        }
        return PDFPage(page: page, document: self)
    }
}

/// A cairo image surface (xRGB32) over memory of its own, destroyed when this value ends. The memory
/// is not cleared first (cairo_image_surface_create would): every page is painted white before it
/// is rendered.
struct CairoSurface: ~Copyable {
    let surface: OpaquePointer
    private let memory: UnsafeMutableRawPointer

    init(width: Int, height: Int) throws(PDFError) {
        let stride = Int(lazy_cairo_format_stride_for_width()(CAIRO_FORMAT_RGB24, Int32(width)))
        guard stride > 0 else {
            throw PDFError(function: "cairo_format_stride_for_width", reason: .other, message: "invalid width \(width)")
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 16)
        // cairo never returns NULL here: failures come back as an error surface, checked below.
        let surface = lazy_cairo_image_surface_create_for_data()(memory.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                                 Int32(width), Int32(height), Int32(stride))!
        guard lazy_cairo_surface_status()(surface) == CAIRO_STATUS_SUCCESS else {
            let message = String(cString: lazy_cairo_status_to_string()(lazy_cairo_surface_status()(surface))!) // static, never NULL
            lazy_cairo_surface_destroy()(surface)
            memory.deallocate()
            throw PDFError(function: "cairo_image_surface_create_for_data", reason: .other, message: message)
        }
        self.surface = surface
        self.memory = memory
    }

    deinit {
        lazy_cairo_surface_destroy()(surface)
        memory.deallocate()
    }

    /// The pixels as packed RGB. Cairo stores xRGB32 native-endian, so bytes read B, G, R, x on little-endian.
    func rgbPixels() -> PixelBuffer {
        lazy_cairo_surface_flush()(surface)
        let width = Int(lazy_cairo_image_surface_get_width()(surface))
        let height = Int(lazy_cairo_image_surface_get_height()(surface))
        let stride = Int(lazy_cairo_image_surface_get_stride()(surface))
        // Non-NULL for an image surface that was created successfully (checked in init).
        let data = lazy_cairo_image_surface_get_data()(surface)!
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            for y in 0..<height {
                var source = UnsafeRawPointer(data + y * stride)
                var target = UnsafeMutableRawPointer(buffer.baseAddress! + y * width * 3)
                var x = 0
                // Four pixels (16 bytes in) make three 32-bit words out: R0G0B0R1 G1B1R2G2 B2R3G3B3.
                while x + 4 <= width {
                    let (p0, p1, p2, p3) = (source.loadUnaligned(as: UInt32.self), source.loadUnaligned(fromByteOffset: 4, as: UInt32.self),
                                            source.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                                            source.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                    let w0 = (p0 >> 16 & 0xFF) | (p0 & 0xFF00) | (p0 & 0xFF) << 16 | (p1 >> 16 & 0xFF) << 24
                    let w1 = (p1 >> 8 & 0xFF) | (p1 & 0xFF) << 8 | (p2 >> 16 & 0xFF) << 16 | (p2 >> 8 & 0xFF) << 24
                    let w2 = (p2 & 0xFF) | (p3 >> 16 & 0xFF) << 8 | (p3 >> 8 & 0xFF) << 16 | (p3 & 0xFF) << 24
                    target.storeBytes(of: w0.littleEndian, as: UInt32.self)
                    target.storeBytes(of: w1.littleEndian, toByteOffset: 4, as: UInt32.self)
                    target.storeBytes(of: w2.littleEndian, toByteOffset: 8, as: UInt32.self)
                    source += 16
                    target += 12
                    x += 4
                }
                while x < width {
                    let pixel = source.loadUnaligned(as: UInt32.self)
                    target.storeBytes(of: UInt8(truncatingIfNeeded: pixel >> 16), as: UInt8.self)
                    target.storeBytes(of: UInt8(truncatingIfNeeded: pixel >> 8), toByteOffset: 1, as: UInt8.self)
                    target.storeBytes(of: UInt8(truncatingIfNeeded: pixel), toByteOffset: 2, as: UInt8.self)
                    source += 4
                    target += 3
                    x += 1
                }
            }
            count = width * height * 3
        }
        return PixelBuffer(width: width, height: height, bands: 3, bytes: bytes)
    }
}

/// A cairo drawing context on a surface, destroyed when this value ends.
struct CairoContext: ~Copyable {
    let context: OpaquePointer

    init(surface: borrowing CairoSurface) throws(PDFError) {
        // cairo never returns NULL here: failures come back as a context in an error state, checked below.
        let context = lazy_cairo_create()(surface.surface)!
        guard lazy_cairo_status()(context) == CAIRO_STATUS_SUCCESS else {
            lazy_cairo_destroy()(context)
            throw PDFError(function: "cairo_create", reason: .other, message: "cannot draw on the page surface")
        }
        self.context = context
    }

    deinit {
        lazy_cairo_destroy()(context)
    }
}
