import PreviewCore
import PreviewPoppler

/// PDF pages through Poppler's Splash rasteriser: the document is parsed once, only the requested page is
/// loaded and rasterised, and the bitmap size is fixed from the page box and the request before
/// any pixel is allocated.
public struct PDFRenderer: Renderer {
    /// Page size used when a page box is empty or invalid (US Letter, in points).
    static let fallbackPageSize = (width: 612.0, height: 792.0)

    /// Formatted once, on first use (which opens the libraries): versions do not change while the process runs.
    public var version: String { Self.libraryVersions }
    private static let libraryVersions = "pdf/4 \(PDFLibrary.versions), \(Encoding.pixelEncoders)"

    /// Documents kept open between calls (long-running processes); nil opens each time.
    let documents: PDFDocumentCache?
    /// Seconds one page may take to draw (``Limits/pageBudget``).
    let pageSeconds: Double

    public init(documents: PDFDocumentCache? = nil, pageSeconds: Double = Limits().pageBudget) {
        self.documents = documents
        self.pageSeconds = pageSeconds
    }

    public func probe(_ path: String) throws(PreviewError) -> MediaFacts {
        try probe(path, page: 1)
    }

    public func probe(_ path: String, page number: Int) throws(PreviewError) -> MediaFacts {
        try withDocument(path) { document throws(PreviewError) in
            let pageCount = try pages(of: document)
            let size = pageSize(try page(number, of: document, pageCount: pageCount))
            return MediaFacts(width: Int(size.width.rounded()), height: Int(size.height.rounded()), pages: pageCount)
        }
    }

    public func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        try withDocument(path) { document throws(PreviewError) in try render(document, request) }
    }

    func withDocument<T>(_ path: String, _ body: (PDFDocument) throws(PreviewError) -> T) throws(PreviewError) -> T {
        guard let documents else { return try body(open(path)) }
        return try documents.withDocument(path, open: open, body)
    }

    private func render(_ document: PDFDocument, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        let pageCount = try pages(of: document)
        let page = try page(request.page, of: document, pageCount: pageCount)
        let size = pageSize(page)
        var request = request
        if request.width == nil && request.height == nil { request.width = RenderRequest.defaultPageWidth }
        let encoded: Result<RenderedImage, PreviewError>
        do {
            if let region = request.region {
                encoded = try slice(region, of: page, size: size, request)
            } else {
                let output = request.fitted(width: size.width, height: size.height, upscale: true)
                encoded = try page.withPixels(width: output.width, height: output.height, seconds: pageSeconds) { rgb in
                    Result { () throws(PreviewError) in
                        // Splash's bitmap is this call's: marked where it is.
                        if let highlights = request.highlights, !highlights.isEmpty {
                            Highlighter.mark(highlights, on: rgb, width: output.width, height: output.height, points: size)
                        }
                        return try Encoding.encode(marking: rgb, width: output.width, height: output.height, showing: .page, request)
                    }
                }
            }
        } catch {
            throw drawingFailed(page: request.page, error)
        }
        var rendered = try encoded.get()
        rendered.facts = MediaFacts(width: Int(size.width.rounded()), height: Int(size.height.rounded()), pages: pageCount)
        return rendered
    }

    /// The region of the page at its full size (at the region's DPI), drawn alone at its output scale
    /// (Splash draws only that slice of the scaled page), then mirrored, turned and grayed.
    private func slice(
        _ region: ImageRegion, of page: PDFPage, size: (width: Double, height: Double),
        _ request: RenderRequest
    ) throws(PDFError) -> Result<RenderedImage, PreviewError> {
        let dpi = region.pageDPI ?? 72
        guard let full = ImageRegion.pageSize(points: size, dpi: dpi) else { return .failure(ImageRegion.pageTooLarge(points: size, dpi: dpi)) }
        let (scaleX, scaleY) = region.scale
        let scaled = (width: Double(full.width) * scaleX, height: Double(full.height) * scaleY)
        // The slice's origin at the output scale, kept inside the scaled page whatever the rounding.
        let x = max(0, min(Int((Double(region.x) * scaleX).rounded()), Int(scaled.width.rounded(.up)) - region.outputWidth))
        let y = max(0, min(Int((Double(region.y) * scaleY).rounded()), Int(scaled.height.rounded(.up)) - region.outputHeight))
        return try page.withPixels(scaledTo: scaled, slice: (x, y, region.outputWidth, region.outputHeight), seconds: pageSeconds) { rgb in
            Result { () throws(PreviewError) in
                if region.rotation == 0 && !region.mirrored && region.tone == .color {
                    return try Encoding.encode(marking: rgb, width: region.outputWidth, height: region.outputHeight, showing: .page, request)
                }
                let shaped = PixelBuffer(width: region.outputWidth, height: region.outputHeight, bands: 3, bytes: Array(rgb)).shaped(as: region)
                return try shaped.bytes.withUnsafeBufferPointer { rgb throws(PreviewError) in
                    try Encoding.encode(rgb: rgb, width: shaped.width, height: shaped.height, showing: .page, request)
                }
            }
        }
    }

    /// Why page `number` could not be drawn, in the contract's words: out of the page budget, or a
    /// failure of the rasteriser.
    func drawingFailed(page number: Int, _ error: PDFError) -> PreviewError {
        guard error.reason == .outOfTime else { return PreviewError(.internal, "The page could not be rasterised.", detail: error.description) }
        return PreviewError(.timeout, "Page \(number) took longer than \(Self.describe(seconds: pageSeconds)) to draw.", detail: error.description)
    }

    /// `20 s`, `1.5 s`.
    static func describe(seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    private func open(_ path: String) throws(PreviewError) -> PDFDocument {
        do {
            return try PDFDocument(path: path)
        } catch  where error.reason == .encrypted {
            throw PreviewError(
                .encrypted, "The PDF is password-protected; remove the password and upload it again.",
                detail: error.description)
        } catch {
            throw PreviewError(.corrupt, "The PDF could not be read; it is damaged.", detail: error.description)
        }
    }

    /// The page count; a PDF without pages is damaged.
    func pages(of document: PDFDocument) throws(PreviewError) -> Int {
        let count = document.pageCount
        guard count > 0 else { throw PreviewError(.corrupt, "The PDF has no pages.") }
        return count
    }

    func page(_ number: Int, of document: PDFDocument, pageCount count: Int) throws(PreviewError) -> PDFPage {
        guard number >= 1, number <= count else {
            throw PreviewError(.pageOutOfRange, "The document has \(count) page\(count == 1 ? "" : "s"); page \(number) does not exist.")
        }
        do {
            return try document.page(number)
        } catch {
            throw PreviewError(.corrupt, "Page \(number) could not be read; the PDF is damaged.", detail: error.description)
        }
    }

    /// The page's displayed size in points, or Letter when the box is empty, negative or absurd.
    func pageSize(_ page: PDFPage) -> (width: Double, height: Double) {
        let size = page.size
        let valid = size.width.isFinite && size.height.isFinite && size.width >= 1 && size.height >= 1
        return valid ? size : Self.fallbackPageSize
    }
}
