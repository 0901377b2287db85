internal import CPoppler

/// One page of a ``PDFDocument``, loaded when it was asked for; holds a reference to its document.
/// Same threading rule as the document.
package struct PDFPage {
    /// 1-based.
    package let number: Int
    /// Size in points as displayed (the crop box): width and height swap for pages with /Rotate 90 or 270.
    package let size: (width: Double, height: Double)
    /// Keeps the document open while the page is used.
    let document: PDFDocument

    init(number: Int, size: (width: Double, height: Double), document: PDFDocument) {
        self.number = number
        self.size = size
        self.document = document
    }

    /// Rasterises the page on white with Splash into exactly `width`×`height` pixels (the caller has
    /// bounded both; nothing larger is ever allocated) within `seconds` of this thread's CPU time, and hands `body` the packed RGB
    /// rows where Splash drew them, `body`'s alone (it may draw on them) until it returns and they are
    /// freed. A page that outlasts `seconds` stops drawing and throws `.outOfTime`.
    package func withPixels<T>(width: Int, height: Int, seconds: Double, _ body: (UnsafeMutableBufferPointer<UInt8>) -> T) throws(PDFError) -> T {
        try withPixels(scaledTo: (Double(width), Double(height)), slice: (0, 0, width, height), seconds: seconds, body)
    }

    /// As ``withPixels(width:height:seconds:_:)``, but of the page scaled to `scaled` pixels, only the
    /// `slice` (inside it) is drawn: a region of a page at any zoom costs its own pixels, not the page's.
    /// Both draw with the document's rasteriser, whose fonts and glyphs (per size) stay cached for its
    /// next pages and regions.
    package func withPixels<T>(
        scaledTo scaled: (width: Double, height: Double), slice: (x: Int, y: Int, width: Int, height: Int),
        seconds: Double, _ body: (UnsafeMutableBufferPointer<UInt8>) -> T
    ) throws(PDFError) -> T {
        var outOfTime: Int32 = 0
        guard
            let bitmap = lazy_docpreview_pdf_render()(
                document.document, Int32(number), scaled.width, scaled.height, Int32(slice.x),
                Int32(slice.y), Int32(slice.width), Int32(slice.height), seconds, &outOfTime)
        else {
            if outOfTime != 0 {
                throw PDFError(function: "PDFDoc::displayPageSlice", reason: .outOfTime, message: "page \(number) took longer than \(seconds) s")
            }
            throw PDFError(function: "PDFDoc::displayPageSlice", reason: .other, message: "page \(number) could not be rasterised")
        }
        defer { lazy_docpreview_pdf_bitmap_free()(bitmap) }
        return body(UnsafeMutableBufferPointer(start: lazy_docpreview_pdf_bitmap_rgb()(bitmap), count: slice.width * slice.height * 3))
    }

    /// The resolution, in pixels an inch, of the image that covers half the page or more (a scanned
    /// page's picture), read from the content stream within `seconds` of this thread's CPU time
    /// without decoding an image; nil when no image covers half the page or the time ran out.
    package func imagePPI(seconds: Double) -> Double? {
        var ppi = 0.0
        guard lazy_docpreview_pdf_page_image_ppi()(document.document, Int32(number), seconds, &ppi) != 0 else { return nil }
        return ppi
    }
}
