internal import CPoppler
import PreviewCore

/// One page of a ``PDFDocument``, loaded when it was asked for; holds a reference to its document.
/// Same threading rule as the document.
public struct PDFPage {
    /// 1-based.
    public let number: Int
    /// Size in points as displayed (the crop box): width and height swap for pages with /Rotate 90 or 270.
    public let size: (width: Double, height: Double)
    /// Keeps the document open while the page is used.
    private let document: PDFDocument

    init(number: Int, size: (width: Double, height: Double), document: PDFDocument) {
        self.number = number
        self.size = size
        self.document = document
    }

    /// Rasterises the page on white with Splash into exactly `width`×`height` RGB pixels (the caller
    /// has bounded both; nothing larger is ever allocated).
    public func render(width: Int, height: Int) throws(PDFError) -> PixelBuffer {
        var rendered = false
        let bytes = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            rendered = lazy_docpreview_pdf_render()(document.document, Int32(number), Int32(width), Int32(height), buffer.baseAddress!) != 0
            count = rendered ? width * height * 3 : 0
        }
        guard rendered else {
            throw PDFError(function: "PDFDoc::displayPageSlice", reason: .other, message: "page \(number) could not be rasterised")
        }
        return PixelBuffer(width: width, height: height, bands: 3, bytes: bytes)
    }
}
