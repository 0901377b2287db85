import PreviewCore
import PreviewDomain
import PreviewPipeline
import PreviewStore

/// What is served of a document, decided here: which preview answers a request and whether it
/// must be rendered, a page's or picture's zoom, a video's playback files. The server's controllers
/// translate HTTP to these calls and back; they bound the renders (slots, lanes), not the rules.
extension DocumentService {
    /// The files a video's playback job made (``playbackManifest(of:)``).
    package typealias Playback = PlaybackManifest
    /// What a document's zoom regions are cut from, and its full size.
    package typealias ZoomSource = DocumentPipeline.ZoomSource
    /// A zoom region's image: its blob, and its bytes when rendered now.
    package typealias ZoomImage = DocumentPipeline.Zoomed
    /// A preview rendered for a request, not stored yet (``keep(_:)`` stores it).
    package typealias RenderedPreview = DocumentPipeline.PreviewOutcome
    /// The media type of the ladder's playlists.
    package static let playlistMime = DocumentPipeline.playlistMime

    /// How a preview request is answered.
    public enum PreviewAnswer: Sendable {
        /// Not before the document's job has made it: ask again (`202`).
        case notYet
        /// Stored already.
        case stored(DerivativeRecord)
        /// To be rendered (``renderPreview(_:of:)``), in a render slot.
        case render
    }

    /// The preview `asked` becomes for `document`: without a size, a picture's is its thumbnail
    /// (a PDF's page at its own size); sizes rounded up to the edges served.
    public func previewRequest(_ asked: RenderRequest, for document: Document) -> RenderRequest {
        var request = asked
        if request.width == nil && request.height == nil && document.kind.category != .pdf {
            request = .thumbnail
            request.page = asked.page
            request.format = asked.format
        }
        request.frameSeconds = document.posterFrameSeconds
        return request.onServedEdges
    }

    /// How `request` (from ``previewRequest(_:for:)``) of `document` is answered: `failed` when its
    /// job failed, `unsupported_type` for a kind without previews. While its job runs only what is
    /// stored is served (an office document's thumbnail is ready before its job ends).
    public func previewAnswer(_ request: RenderRequest, of document: Document) async throws -> PreviewAnswer {
        let processing: Bool
        switch document.status {
        case .done: processing = false
        case .failed: throw document.error ?? PreviewError(.corrupt, "The document could not be processed.")
        case .queued, .processing:
            guard document.previewStatus == .ready else { return .notYet }
            processing = true
        }
        if document.previewStatus == .noPreview {
            throw PreviewError(.unsupportedType, "No preview is made for \(document.kind.label).")
        }
        if let stored = try await pipeline.cachedPreview(source: document.sha256, kind: document.kind, request: request) { return .stored(stored) }
        return processing ? .notYet : .render
    }

    /// Renders `request` of `document` and answers it, not stored yet: ``keep(_:)`` stores it once
    /// it is answered.
    package func renderPreview(_ request: RenderRequest, of document: Document) async throws(PreviewError) -> RenderedPreview {
        try await pipeline.previewToKeep(source: document.sha256, kind: document.kind, request: request)
    }

    /// Stores a preview rendered for a request.
    package func keep(_ preview: RenderedPreview) async throws(PreviewError) {
        try await pipeline.keep(preview)
    }

    /// Renders `request` of `document` again and stores it over a damaged or missing blob.
    package func repairPreview(_ request: RenderRequest, of document: Document) async throws(PreviewError) -> DerivativeRecord {
        try await pipeline.preview(source: document.sha256, kind: document.kind, request: request, repairing: true).record
    }

    /// Where originals and playback files are streamed from (by range, checked as they go).
    public var blobs: any BlobStorage { store.blobs }

    /// The bytes of blob `hash` when they still hash to its name; nil when it is missing or damaged.
    package func intactBytes(of hash: BlobHash) async -> [UInt8]? {
        guard let bytes = try? await store.blobs.read(hash), BlobHash.of(bytes) == hash else { return nil }
        return bytes
    }

    /// What serving a stored derivative (a preview, a zoom tile) comes to: its bytes when they still
    /// hash to its name; when they are damaged or missing, that is counted
    /// (`docpreview_damaged_blobs_total{kind}`) and logged, and `remake` makes it again — its bytes,
    /// or when it gives only its blob, that blob read back intact. Fails when even those cannot be had.
    package func servedBytes(of stored: BlobHash, kind: String, remake: () async throws -> (hash: BlobHash, bytes: [UInt8]?)) async throws
        -> (hash: BlobHash, bytes: [UInt8])
    {
        if let bytes = await intactBytes(of: stored) { return (stored, bytes) }
        pipeline.logger.error(
            "a stored derivative is damaged or missing; it is made again",
            metadata: ["preview.kind": "\(kind)", "preview.derivative": "\(stored)"])
        ServiceMetrics.damagedBlobs(kind: kind, problem: "damaged")
        let made = try await remake()
        if let bytes = made.bytes { return (made.hash, bytes) }
        guard let bytes = await intactBytes(of: made.hash) else {
            throw PreviewError(.internal, "The \(kind) could not be stored intact; try again later.")
        }
        return (made.hash, bytes)
    }

    /// Preview `request` of the document `reference` names (its id, or the SHA-256 of its original:
    /// the latest document of those bytes), rendered and stored now unless it is stored already
    /// (`docpreview preview`); `not_found` when nothing matches.
    package func preview(of reference: String, _ request: RenderRequest) async throws -> (document: Document, preview: RenderedPreview) {
        let found =
            if let hash = BlobHash(hex: reference) { try await store.index.latestDocument(sha256: hash) } else {
                try await store.index.document(id: reference)
            }
        guard let document = found else { throw PreviewError(.notFound, "No document \(reference) in the store.") }
        var request = request
        request.frameSeconds = document.posterFrameSeconds
        return (document, try await pipeline.preview(source: document.sha256, kind: document.kind, request: request))
    }

    // MARK: Zoom

    /// Version `version` of document `id` (nil: the latest) when its regions can be served:
    /// `failed` when its job failed, `unavailable` while it runs.
    package func zoomable(_ id: String, version: Int?) async throws -> Document {
        let document = if let version { try await self.version(version, of: id) } else { try await self.document(id: id) }
        switch document.status {
        case .done: return document
        case .failed: throw document.error ?? PreviewError(.corrupt, "The document could not be processed.")
        case .queued, .processing: throw PreviewError(.unavailable, "The document is still being processed; ask again in a moment.")
        }
    }

    /// What `document`'s regions are cut from: page `page` at `dpi`, or its picture (its pyramid
    /// built now, once, when large). Renders: in a render slot.
    package func zoomSource(of document: Document, page: Int?, dpi: Int) async throws(PreviewError) -> ZoomSource {
        try await pipeline.zoomSource(of: document, page: page, dpi: dpi)
    }

    /// Region `region` of `zoom` (with a share's `marks`) as stored already (a canonical tile is
    /// kept), or nil.
    package func storedZoom(_ zoom: ZoomSource, _ region: ImageRegion, format: RenderRequest.Format, marks: RenderMarks)
        async throws(PreviewError) -> DerivativeRecord?
    {
        try await pipeline.cachedZoom(zoom, region, format: format, marks: marks)
    }

    /// Renders region `region` of `zoom` (with a share's `marks`), stored when `keeping` (a canonical tile).
    package func zoom(_ zoom: ZoomSource, _ region: ImageRegion, format: RenderRequest.Format, marks: RenderMarks, keeping: Bool)
        async throws(PreviewError) -> ZoomImage
    {
        try await pipeline.zoomed(zoom, region, format: format, marks: marks, keeping: keeping)
    }
}
