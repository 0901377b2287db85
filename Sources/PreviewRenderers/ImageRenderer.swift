import Foundation
import PreviewCore
import PreviewVips

/// Thumbnails of images through libvips: pixel limit checked from the header before any decoding,
/// then shrink-on-load, EXIF autorotation, sRGB, first frame of animations.
public struct ImageRenderer: Renderer {
    package var limits: Limits
    /// The image kind detection found; libvips must read the file with that kind's loader. Nil
    /// detects the kind from the file's bytes first.
    package var format: FileKind?

    /// Formatted once, on first use (which opens the libraries): versions do not change while the process runs.
    public var version: String { Self.libraryVersions }
    private static let libraryVersions = "image/1 vips \(Vips.version)"

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// This renderer reading `kind` (an image kind) with its own libvips loader only.
    public func reading(_ kind: FileKind) -> ImageRenderer {
        var renderer = self
        renderer.format = kind
        return renderer
    }

    /// The libvips loader for each image kind; nil for kinds that are not images.
    static func load(for kind: FileKind) -> VipsLoad? {
        switch kind {
        case .jpeg: .jpeg
        case .png: .png
        case .gif: .gif
        case .webp: .webp
        case .tiff: .tiff
        case .heic, .avif: .heif
        case .jxl: .jpegXL
        case .jp2: .jpeg2000
        case .bmp, .ico: .magick
        case .svg: .svg
        default: nil
        }
    }

    public func probe(_ path: String) throws(PreviewError) -> MediaFacts {
        try facts(try header(path, try load(path)))
    }

    func load(_ path: String) throws(PreviewError) -> VipsLoad {
        let kind =
            format ?? (try? ByteProbe(contentsOf: URL(fileURLWithPath: path))).map {
                ContentDetector.detect($0, fileExtension: URL(fileURLWithPath: path).pathExtension.lowercased()).kind
            } ?? .unknown
        guard let load = Self.load(for: kind) else {
            throw PreviewError(.unsupportedType, "No image preview is made for \(kind.label).")
        }
        return load
    }

    func header(_ path: String, _ load: VipsLoad) throws(PreviewError) -> VipsImageRef {
        do {
            return try VipsImageRef.header(path: path, load: load)
        } catch {
            throw PreviewError(.corrupt, "The image could not be read; it may be damaged or truncated.", detail: error.description)
        }
    }

    func facts(_ header: VipsImageRef) throws(PreviewError) -> MediaFacts {
        let pixels = header.width * header.height
        if pixels > limits.maxPixels {
            throw PreviewError(
                .tooManyPixels,
                "The image is \(header.width)×\(header.height) (\(megapixels(pixels)) megapixels); "
                    + "the limit is \(megapixels(limits.maxPixels)) megapixels.")
        }
        let rotation = [3: 180, 4: 180, 5: 90, 6: 90, 7: 270, 8: 270][header.orientation] ?? 0
        let swapped = rotation % 180 != 0
        return MediaFacts(
            width: swapped ? header.height : header.width, height: swapped ? header.width : header.height,
            pages: header.pageCount > 1 ? header.pageCount : nil, rotation: rotation)
    }

    public func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        let load = try load(path)
        let header = try header(path, load)
        let facts = try facts(header)
        if let region = request.region { return try render(region, of: path, load, header, facts, request) }
        let box = request.box(defaultEdge: RenderRequest.defaultEdge)
        do {
            let thumbnail =
                load == .jpeg
                ? try VipsImageRef.jpegThumbnail(path: path, shrink: Self.jpegShrink(facts, box), width: box.width, height: box.height)
                : try VipsImageRef.thumbnail(path: path, load: load, width: box.width, height: box.height)
            let bytes = try Encoding.encode(thumbnail, request)
            return RenderedImage(bytes: bytes, format: request.format, width: thumbnail.width, height: thumbnail.height, facts: facts)
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError(.corrupt, "The image could not be decoded; it may be damaged or truncated.", detail: "\(error)")
        }
    }

    /// The side of a pyramid's TIFF tiles: the zoom's tile, so a tile at full size decodes one.
    static let pyramidTile = 512
    /// The JPEG quality of a pyramid's tiles (every region cut from it is encoded once more). Below 90
    /// libvips subsamples chroma: a 100 MP photo's pyramid is 45 MB and 1.8 s at 85, 162 MB and 3.5 s at 90.
    static let pyramidQuality = 85

    /// Writes the tiled pyramid of the image at `path` to `output` (a pyramidal TIFF: JPEG tiles,
    /// each level half the one before), upright as its EXIF orientation says, in sRGB, flattened on
    /// white, after the pixel limit is checked. Returns the image's facts. A damaged file's missing
    /// pixels are filled rather than failed: libvips 8.14's pyramid writer crashes (TIFFClose flushing
    /// to its closed target) when its input fails halfway (Fuzz/regressions/truncated-png-pyramid.png),
    /// and an image zoomed has had its thumbnail made, which judges the file strictly.
    public func writePyramid(_ path: String, to output: String) throws(PreviewError) -> MediaFacts {
        let load = try load(path)
        let header = try header(path, load)
        let facts = try facts(header)
        do {
            // Read once, top to bottom, unless turning it needs its rows in another order.
            let source = try VipsImageRef.open(path: path, load: load, sequential: header.orientation <= 2, strict: false)
            try source.autorotated().inSRGB().flattened().writePyramid(to: output, tile: Self.pyramidTile, quality: Self.pyramidQuality)
            return facts
        } catch {
            throw PreviewError(.corrupt, "The image could not be decoded; it may be damaged or truncated.", detail: error.description)
        }
    }

    /// A region of the image at its full size (upright), scaled, mirrored, turned and grayed: from
    /// the smallest level of our pyramid that keeps its detail, or from the image itself.
    private func render(
        _ region: ImageRegion, of path: String, _ load: VipsLoad, _ header: VipsImageRef, _ facts: MediaFacts,
        _ request: RenderRequest
    ) throws(PreviewError) -> RenderedImage {
        do {
            let area =
                region.fromPyramid
                ? try Self.pyramidArea(path, region, full: header)
                : try VipsImageRef.open(path: path, load: load, sequential: false).autorotated()
                    .extracted(x: region.x, y: region.y, width: region.width, height: region.height)
            var image = try area.resized(width: region.outputWidth, height: region.outputHeight).inSRGB()
            if request.format == .jpeg || region.tone != .color { image = try image.flattened() }
            if region.mirrored { image = try image.mirrored() }
            image = try image.rotated(clockwise: region.rotation)
            if region.tone != .color { image = try image.grayed() }
            if region.tone == .bitonal { image = try image.thresholded() }
            let bytes =
                request.isMarked ? try Encoding.encode(image, request) : try image.encoded(as: request.format, quality: request.quality)
            return RenderedImage(bytes: bytes, format: request.format, width: image.width, height: image.height, facts: facts)
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError(.corrupt, "The image could not be decoded; it may be damaged or truncated.", detail: "\(error)")
        }
    }

    /// The region's area in the smallest pyramid level at least as detailed as its output (levels
    /// are the TIFF's pages; page 0, `full`, is the full size). Only that level's tiles under the area are decoded.
    private static func pyramidArea(_ path: String, _ region: ImageRegion, full: VipsImageRef) throws(VipsError) -> VipsImageRef {
        let needed = max(Double(region.outputWidth) / Double(region.width), Double(region.outputHeight) / Double(region.height))
        var (level, scale) = (full, 1.0)
        // Level k is about 1/2^k of the full size: open the one that should do, or the one above it
        // when rounding made it a pixel short.
        var page = min(full.pageCount - 1, max(0, Int(log2(1 / needed).rounded(.down))))
        while page > 0 {
            let candidate = try VipsImageRef.tiffPage(path: path, page: page)
            let candidateScale = Double(candidate.width) / Double(full.width)
            if candidateScale >= needed {
                (level, scale) = (candidate, candidateScale)
                break
            }
            page -= 1
        }
        let left = min(level.width - 1, Int((Double(region.x) * scale).rounded(.down)))
        let top = min(level.height - 1, Int((Double(region.y) * scale).rounded(.down)))
        let right = max(left + 1, min(level.width, Int((Double(region.x + region.width) * scale).rounded(.up))))
        let bottom = max(top + 1, min(level.height, Int((Double(region.y + region.height) * scale).rounded(.up))))
        return try level.extracted(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The largest JPEG decoding scale (1/8, 1/4, 1/2) that still leaves the image at least as large
    /// as the box in its limiting dimension, as sharp's fastShrinkOnLoad does.
    static func jpegShrink(_ facts: MediaFacts, _ box: (width: Int, height: Int)) -> Int {
        guard let width = facts.width, let height = facts.height else { return 1 }
        let factor = max(Double(width) / Double(box.width), Double(height) / Double(box.height))
        return [8, 4, 2].first { Double($0) <= factor } ?? 1
    }

    private func megapixels(_ pixels: Int) -> String {
        let value = Double(pixels) / 1_000_000
        return value >= 10 ? String(Int(value.rounded())) : String(Double(Int(value * 10)) / 10)
    }
}
