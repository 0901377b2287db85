import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// Zoom: regions of a document's picture (an image, a video's poster frame) or of one of its pages at
/// any scale. A picture's regions are cut from its tiled pyramid, built once; a page's are drawn from
/// its vectors, only the region (DESIGN §8b).
extension DocumentPipeline {
    /// What a document's regions are cut from, and its full size in pixels.
    package struct ZoomSource: Sendable, Hashable {
        /// The blob the renderer reads: the original, its pyramid, its poster frame, or its PDF pivot's source.
        package var hash: BlobHash
        package var kind: FileKind
        package var width: Int
        package var height: Int
        /// For a page: its number and the resolution its full size is given at.
        package var page: Int?
        package var pageDPI: Int?
        /// Regions come from our pyramid of the picture.
        package var fromPyramid: Bool
    }

    /// The side of the tiles a zoom client is told to ask for (IIIF `tiles.width`).
    package static let zoomTile = ImageRegion.zoomTile
    /// The largest side of a video's poster frame.
    static let posterEdge = RenderRequest.maxEdge

    /// The source of `document`'s regions: page `page` (1-based) of a paged document at `dpi`, or the
    /// picture of an image or video (its pyramid made now, once, when it is larger than two tiles
    /// either way; a video's poster frame rendered once at its full size, up to 4096 px).
    package func zoomSource(of document: Document, page: Int?, dpi: Int) async throws(PreviewError) -> ZoomSource {
        switch (document.kind.isPaged, document.kind.category, page) {
        case (true, _, let page?):
            var source = document.sha256
            var kind = document.kind
            if Renderers.needsPivot(kind) {
                source = try await pivot(of: source, kind: kind).record.resultSha256
                kind = .pdf
            }
            guard let renderer = renderers.renderer(for: kind, on: offload) else { throw Self.noZoom(document) }
            let path = try await localPath(of: source)
            let facts = try await renderer.probe(path, page: page)
            let points = (width: Double(facts.width ?? 612), height: Double(facts.height ?? 792))
            guard let size = ImageRegion.pageSize(points: points, dpi: dpi) else { throw ImageRegion.pageTooLarge(points: points, dpi: dpi) }
            // The page's own record of its size is in points; its pixels are the PDF's, pivot or not.
            return ZoomSource(hash: source, kind: kind, width: size.width, height: size.height, page: page, pageDPI: dpi, fromPyramid: false)
        case (false, .image, nil):
            guard let width = document.width, let height = document.height else { throw Self.noZoom(document) }
            return try await picture(document.sha256, kind: document.kind, width: width, height: height)
        case (false, .video, nil):
            guard let width = document.width, let height = document.height, width > 0, height > 0 else { throw Self.noZoom(document) }
            var full = RenderRequest(width: min(width, Self.posterEdge), height: min(height, Self.posterEdge), quality: 92)
            full.frameSeconds = document.posterFrameSeconds
            let poster = try await preview(source: document.sha256, kind: document.kind, request: full)
            return try await picture(poster.record.resultSha256, kind: .jpeg, width: poster.record.width, height: poster.record.height)
        default:
            throw Self.noZoom(document, page: page)
        }
    }

    private static func noZoom(_ document: Document, page: Int? = nil) -> PreviewError {
        if page != nil && !document.kind.isPaged { return PreviewError(.pageOutOfRange, "\(document.kind.label) has no pages.") }
        if page == nil && document.kind.isPaged { return PreviewError(.pageOutOfRange, "Name a page of \(document.kind.label): ~p1, ~p2…") }
        return PreviewError(.unsupportedType, "No zoomable image is made for \(document.kind.label).")
    }

    /// A picture of `width`×`height`: small ones are cut from themselves, larger ones from their pyramid.
    private func picture(_ source: BlobHash, kind: FileKind, width: Int, height: Int) async throws(PreviewError) -> ZoomSource {
        var zoom = ZoomSource(hash: source, kind: kind, width: width, height: height, fromPyramid: false)
        if max(width, height) > 2 * Self.zoomTile {
            zoom.hash = try await pyramid(of: source, kind: kind).resultSha256
            zoom.kind = .tiff
            zoom.fromPyramid = true
        }
        return zoom
    }

    /// The recorded pyramid of the picture `source`, made now (once) in a renderer child when there is none.
    func pyramid(of source: BlobHash, kind: FileKind) async throws(PreviewError) -> DerivativeRecord {
        let recipe = "pyramid/1 \(renderers.image.version)"
        let key = BlobHash.of(Array("derivative/2\n\(source.hex)\npyramid\n\(recipe)".utf8)).hex
        if let hit = try await cached(key: key) { return hit }
        let made = try await remembering(key: key, source: source) { () async throws(PreviewError) -> (DerivativeRecord, Int) in
            let output = store.blobs.stagingFolder.appendingPathComponent("pyramid-\(UUID().uuidString).tif")
            defer { try? FileManager.default.removeItem(at: output) }
            let facts = try await renderers.pyramid(try await localPath(of: source), kind: kind, to: output.path, on: offload)
            do {
                let blobs = store.blobs
                let writer = try await offload.run(.writes) { try blobs.stage(fileAt: output) }
                let hash = try await writer.publish(as: .derivative)
                return (
                    DerivativeRecord(
                        key: key, sourceSha256: source, operation: .pyramid, parameters: "{}", renderer: recipe,
                        resultSha256: hash, width: facts.width ?? 0, height: facts.height ?? 0, createdAt: Date()),
                    writer.size
                )
            } catch {
                throw PreviewError.storing(error, "The zoom pyramid could not be stored.")
            }
        }
        try await record { try await store.index.recordDerivative(made.0, resultSize: made.1, resultMime: FileKind.tiff.mime) }
        return made.0
    }

    /// A zoomed image: its hash (its ETag) and its bytes, or nil bytes when it is the stored blob `hash`.
    package struct Zoomed: Sendable {
        package var hash: BlobHash
        package var bytes: [UInt8]?
    }

    /// The region `region` of `zoom` encoded as `format`. Kept (a derivative, shared by every client
    /// and within the preview budget) when `keeping`, which callers reserve for the canonical tiles;
    /// otherwise rendered for this answer only, so clients cannot fill the store with one-off sizes.
    package func zoomed(_ zoom: ZoomSource, _ region: ImageRegion, format: RenderRequest.Format, marks: RenderMarks = .none, keeping: Bool)
        async
        throws(PreviewError) -> Zoomed
    {
        let request = zoomRequest(zoom, region, format: format, marks: marks)
        if keeping {
            let kept = try await preview(source: zoom.hash, kind: zoom.kind, request: request)
            return Zoomed(hash: kept.record.resultSha256, bytes: kept.rendered?.bytes)
        }
        guard let renderer = renderers.renderer(for: zoom.kind, on: offload) else {
            throw PreviewError(.unsupportedType, "No zoom for \(zoom.kind.label).")
        }
        let path = try await localPath(of: zoom.hash)
        let image = try await renderer.render(path, request)
        return Zoomed(hash: BlobHash.of(image.bytes), bytes: image.bytes)
    }

    /// The kept region, when it is in the store already.
    package func cachedZoom(_ zoom: ZoomSource, _ region: ImageRegion, format: RenderRequest.Format, marks: RenderMarks = .none)
        async throws(PreviewError) -> DerivativeRecord?
    {
        try await cachedPreview(source: zoom.hash, kind: zoom.kind, request: zoomRequest(zoom, region, format: format, marks: marks))
    }

    /// The render of `region`, with `marks` laid out on the whole picture.
    private func zoomRequest(_ zoom: ZoomSource, _ region: ImageRegion, format: RenderRequest.Format, marks: RenderMarks) -> RenderRequest {
        var region = region
        region.pageDPI = zoom.pageDPI
        region.fromPyramid = zoom.fromPyramid
        var request = RenderRequest(page: zoom.page ?? 1, format: format)
        request.region = region
        return marks.applied(to: request, canvas: RenderRequest.Canvas(width: zoom.width, height: zoom.height))
    }
}
