import Foundation
import PreviewCore
import PreviewDomain

/// What a watermarked share serves as its download: never the original. A paged document is
/// rebuilt as a PDF of its pages' pictures with the watermark burned in (each page kept as a
/// derivative, so a second download is assembled from the store); a picture is itself, watermarked,
/// as a JPEG of up to 4096 px. A video or a sound has no watermarked download.
extension DocumentService {
    /// A watermarked download: its bytes, type and file name.
    package struct WatermarkedDownload: Sendable {
        package var bytes: [UInt8]
        package var mime: String
        package var fileName: String
    }

    /// The most pages a watermarked download holds (a longer document is refused: its pages can
    /// still be read on the link's page).
    package static let maxWatermarkedPages = 100
    /// The width of a page's picture in a watermarked download: a Letter page at ``PagesPDF/dpi``.
    static let watermarkedPageWidth = 1275

    /// `document` with `text` burned into every page or its picture; `forbidden` for a kind that
    /// cannot carry it, `too_long` past ``maxWatermarkedPages``.
    package func watermarkedDownload(of document: Document, text: String) async throws -> WatermarkedDownload {
        let base = (document.filename as NSString).deletingPathExtension
        let watermark = Watermark(text: text)
        if document.kind.isPaged {
            let count = document.pages ?? 1
            guard count <= Self.maxWatermarkedPages else {
                throw PreviewError(
                    .tooLong, "A watermarked download holds at most \(Self.maxWatermarkedPages) pages; this document has \(count).")
            }
            var pages: [PagesPDF.Page] = []
            for number in 1...max(1, count) {
                var request = RenderRequest(page: number, width: Self.watermarkedPageWidth, format: .jpeg, quality: 85)
                request.watermark = watermark
                let made = try await pipeline.preview(source: document.sha256, kind: document.kind, request: request)
                pages.append(PagesPDF.Page(jpeg: try await bytes(of: made), width: made.record.width, height: made.record.height))
            }
            return WatermarkedDownload(bytes: PagesPDF.make(pages), mime: FileKind.pdf.mime, fileName: base + ".pdf")
        }
        guard document.kind.category == .image else {
            throw PreviewError(.forbidden, "This link's watermark cannot be burned into \(document.kind.label); it has no download.")
        }
        var request = RenderRequest(width: RenderRequest.maxEdge, height: RenderRequest.maxEdge, format: .jpeg, quality: 90)
        request.watermark = watermark
        let made = try await pipeline.preview(source: document.sha256, kind: document.kind, request: request)
        return WatermarkedDownload(bytes: try await bytes(of: made), mime: FileKind.jpeg.mime, fileName: base + ".jpg")
    }

    /// The bytes of a render: as rendered now, or read back intact from the store.
    private func bytes(of made: RenderedPreview) async throws -> [UInt8] {
        if let bytes = made.rendered?.bytes { return bytes }
        guard let bytes = await intactBytes(of: made.record.resultSha256) else {
            throw PreviewError(.internal, "A watermarked page could not be read back from the store; try again.")
        }
        return bytes
    }
}
