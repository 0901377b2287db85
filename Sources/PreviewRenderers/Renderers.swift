import Foundation
import Logging
import PreviewCore
import Synchronization

/// The renderer for each kind that has previews.
public struct Renderers: Sendable {
    public var video: VideoRenderer
    public var pdf: PDFRenderer
    public var image: ImageRenderer
    /// Renditions and scrubbing thumbnails of videos.
    package var playback: PlaybackMaker
    /// When set, probes and renders run in its child processes instead of this one.
    package var isolation: RendererPool?
    private let officeChildren: OfficeChildren

    /// - Parameters:
    ///   - openDocuments: PDFs kept open between renders (for long-running processes; 0 for none).
    ///   - isolation: child processes to render in (`batch`, `serve`, `worker`); nil renders here,
    ///     except office conversions, which always run in a child: of `isolation`, else of a pool of
    ///     their own started from `executable` on first use.
    public init(
        limits: Limits = Limits(), renditions: RenditionSettings = RenditionSettings(), openDocuments: Int = 0,
        isolation: RendererPool? = nil, executable: URL = RendererPool.currentExecutable
    ) {
        video = VideoRenderer(limits: limits)
        playback = PlaybackMaker(limits: limits, settings: renditions, isolation: isolation)
        pdf = PDFRenderer(documents: openDocuments > 0 ? PDFDocumentCache(capacity: openDocuments) : nil, pageSeconds: limits.pageBudget)
        image = ImageRenderer(limits: limits)
        self.isolation = isolation
        officeChildren = OfficeChildren(isolation: isolation, executable: executable, limits: limits)
    }

    /// The in-process renderer for `kind`, called on the caller's thread (by a renderer child, or
    /// through ``renderer(for:on:)``); nil when the kind has no previews or its pages come from an
    /// office child.
    package func renderer(for kind: FileKind) -> (any Renderer)? {
        switch kind.category {
        case .video, .audio: video.reading(kind)
        case .pdf: pdf
        case .image: image.reading(kind)
        case .office, .text, .archive, .executable, .other: nil
        }
    }

    /// The renderer for `kind` as the pipeline and the commands await it, its calls on `offload`'s
    /// renders lane or in a child; nil when the kind has no previews.
    package func renderer(for kind: FileKind, on offload: Offload) -> (any AsyncRenderer)? {
        if Self.needsPivot(kind) { return OfficeRenderer(kind: kind, office: office, pdf: pdfRenderer(on: offload), offload: offload) }
        guard let local = renderer(for: kind) else { return nil }
        guard let isolation else { return OffloadedRenderer(local: local, offload: offload) }
        return IsolatedRenderer(local: local, kind: kind, pool: isolation, offload: offload)
    }

    /// Whether `kind` has previews.
    package func renders(_ kind: FileKind) -> Bool {
        Self.needsPivot(kind) || renderer(for: kind) != nil
    }

    /// The PDF renderer, isolated when the others are: it also renders office documents' pivots.
    package func pdfRenderer(on offload: Offload) -> any AsyncRenderer {
        guard let isolation else { return OffloadedRenderer(local: pdf, offload: offload) }
        return IsolatedRenderer(local: pdf, kind: .pdf, pool: isolation, offload: offload)
    }

    /// Writes the tiled pyramid of the image at `path` to `output` (in a child when isolated); returns its facts.
    package func pyramid(_ path: String, kind: FileKind, to output: String, on offload: Offload) async throws(PreviewError) -> MediaFacts {
        guard let isolation else {
            let reader = image.reading(kind)
            return try await offload.render { () throws(PreviewError) in try reader.writePyramid(path, to: output) }
        }
        return try await isolation.pyramid(path, kind: kind, to: output, on: offload)
    }

    /// The words of page `page` of the PDF at `path` (an office document's pivot), read from its
    /// text layer in a child when isolated; when it has none (a scan) and `ocr` names languages,
    /// from its pixels.
    package func text(ofPDF path: String, page: Int, ocr languages: String?, on offload: Offload) async throws(PreviewError) -> PageText {
        let layer: PageText
        if let isolation {
            layer = try await isolation.text(path, page: page, on: offload)
        } else {
            layer = try await offload.render { [pdf] () throws(PreviewError) in try pdf.text(path, page: page) }
        }
        guard layer.words.isEmpty, let languages else { return layer }
        return try await ocr(of: path, kind: .pdf, page: page, languages: languages, on: offload)
    }

    /// The words of page `page` of the PDF at `path` (a scan's), or of the image (`kind`), read from
    /// their pixels in `languages` (``OCRReading``), in a child when isolated.
    package func ocr(of path: String, kind: FileKind, page: Int, languages: String, on offload: Offload) async throws(PreviewError) -> PageText {
        guard let isolation else {
            return try await offload.render { [self] () throws(PreviewError) in try ocr(path, kind: kind, page: page, languages: languages) }
        }
        return try await isolation.ocr(path, kind: kind, page: page, languages: languages, on: offload)
    }

    /// ``ocr(of:kind:page:languages:on:)`` on the caller's thread (a renderer child's).
    func ocr(_ path: String, kind: FileKind, page: Int, languages: String) throws(PreviewError) -> PageText {
        switch kind.category {
        case .pdf: return try pdf.ocr(path, page: page, languages: languages)
        case .image: return try image.reading(kind).ocr(path, languages: languages, seconds: pdf.pageSeconds)
        default: throw PreviewError(.unsupportedType, "No words are read from the pixels of \(kind.label).")
        }
    }

    /// The words of `pages` (nil: every page) of the file at `path`, from the text layer of a PDF or
    /// of an office document's pivot (converted in an office child first), and with `ocr`'s
    /// languages from the pixels of a page without one and of an image (its one page); nil when
    /// `kind` has no pages (nor, without `ocr`, any words).
    package func text(
        of path: String, kind: FileKind, pages: ClosedRange<Int>?, ocr languages: String?,
        on offload: Offload
    ) async throws(PreviewError) -> [PageText]? {
        let pdf = pdfRenderer(on: offload)
        let read = { (pivot: String) async throws(PreviewError) -> [PageText] in
            let count = try await pdf.probe(pivot).pages ?? 1
            var texts: [PageText] = []
            for page in pages ?? 1...count { texts.append(try await self.text(ofPDF: pivot, page: page, ocr: languages, on: offload)) }
            return texts
        }
        if kind == .pdf { return try await read(path) }
        if kind.category == .image, let languages, renders(kind) {
            if let pages, pages != 1...1 {
                throw PreviewError(.pageOutOfRange, "An image has 1 page; page \(pages.lowerBound) is not among them.")
            }
            return [try await ocr(of: path, kind: kind, page: 1, languages: languages, on: offload)]
        }
        guard Self.needsPivot(kind) else { return nil }
        return try await OfficeRenderer(kind: kind, office: office, pdf: pdf, offload: offload).withPivot(path) { pivot, _ throws(PreviewError) in
            try await read(pivot)
        }
    }

    /// Whether `kind`'s pages come from a PDF pivot that LibreOffice makes (office, text, CSV).
    package static func needsPivot(_ kind: FileKind) -> Bool {
        kind.isPaged && kind != .pdf
    }

    /// The children that convert office documents to their PDF pivot.
    package var office: RendererPool { officeChildren.pool }

    /// What a pivot depends on besides the source: the conversion and the office installation.
    package static var officeVersion: String { "office-pdf/1 \(OfficeInstallation.identity)" }
}

/// The pool office conversions use: the isolation pool, or one of their own made on first use (a
/// process that never meets an office file starts no office child and claims no office profile).
private final class OfficeChildren: Sendable {
    private let isolation: RendererPool?
    private let executable: URL
    private let limits: Limits
    private let own = Mutex<RendererPool?>(nil)

    init(isolation: RendererPool?, executable: URL, limits: Limits) {
        self.isolation = isolation
        self.executable = executable
        self.limits = limits
    }

    var pool: RendererPool {
        if let isolation { return isolation }
        return own.withLock { own in
            if let own { return own }
            let pool = RendererPool(
                executable: executable, size: 1, officeSize: 1, limits: limits,
                logger: Logger(label: "docpreview.office"))
            own = pool
            return pool
        }
    }
}
