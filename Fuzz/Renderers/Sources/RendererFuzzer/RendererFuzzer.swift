// libFuzzer entry point for the renderers: arbitrary bytes, written to a file, probed and rendered
// in-process by the renderer `$DOCPREVIEW_FUZZ_RENDERER` names (video, pdf or image), with small
// limits so each input is quick, then a zoom region of it (for an image, cut from the pyramid made of it
// first); `transcode` makes a video's rendition (libavformat, libavcodec,
// libavfilter, libx264), its HLS ladder (the HLS muxer, fragmented MP4), its scrubbing thumbnails, a clip
// (stream copy, the MP4 muxer's edit lists) and a teaser instead. A crash, a sanitizer report, a hang
// past libFuzzer's -timeout or
// a failure that is not a PreviewError is a finding. `ocr` reads the bytes as an image, then as a
// PDF's first page, with Tesseract (Leptonica under it), as a scan's text job does.
import Foundation
import PreviewCore
import PreviewRenderers

private let target = ProcessInfo.processInfo.environment["DOCPREVIEW_FUZZ_RENDERER"] ?? "image"
private let input = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-fuzz-\(getpid())-\(target)")
private let limits: Limits = {
    var limits = Limits()
    limits.jobSeconds = 5
    limits.maxPixels = 4_000_000
    limits.maxRenditionPixels = 1_000_000
    limits.maxRenditionSeconds = 30
    return limits
}()
private let output = input.appendingPathExtension("mp4")
private let sprites = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-fuzz-\(getpid())-sprites")
private let ladder = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-fuzz-\(getpid())-ladder")
private let pyramid = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-fuzz-\(getpid())-pyramid.tif")
private let renderer: any Renderer = {
    let renderers = Renderers(limits: limits)
    switch target {
    case "video": return renderers.video
    case "pdf": return renderers.pdf
    default: return renderers.image  // image, ocr
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRenderer(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Data(bytes: $0, count: count) } ?? Data()
    guard (try? bytes.write(to: input)) != nil else { return 0 }
    if target == "transcode" {
        var settings = RenditionSettings()
        settings.height = 144
        settings.preset = "ultrafast"
        let transcoding = VideoTranscoding(limits: limits, settings: settings, timeoutSeconds: 5)
        _ = try? transcoding.transcode(input.path, to: output.path)
        _ = try? VideoLadder(transcoding: transcoding).make(input.path, into: ladder.path)
        try? FileManager.default.createDirectory(at: sprites, withIntermediateDirectories: true)
        _ = try? ScrubbingSprites(limits: limits).write(input.path, into: sprites.path)
        _ = try? VideoClipping(timeoutSeconds: 5).clip(input.path, kind: nil, from: 0.4, to: 1.7, into: output.path)
        let spans = [MediaSpan(start: 0.2, end: 1.2), MediaSpan(start: 1.5, end: 2.5)]
        _ = try? VideoTeaser(timeoutSeconds: 5).write(input.path, kind: nil, spans: spans, to: output.path)
        return 0
    }
    if target == "ocr" {
        let renderers = Renderers(limits: limits)
        _ = try? renderers.image.ocr(input.path, languages: "eng", seconds: 2)
        _ = try? renderers.pdf.ocr(input.path, page: 1, languages: "eng")
        return 0
    }
    // Outcomes are PreviewErrors by type; what matters is that nothing crashes, leaks or hangs.
    _ = try? renderer.probe(input.path)
    _ = try? renderer.render(input.path, RenderRequest(width: 64, height: 64))
    _ = try? renderer.render(input.path, RenderRequest(page: 2, width: 32, format: .png))
    zoom()
    return 0
}

/// A region of the input's middle, turned, mirrored and grayed: a page's at 600 dpi as a slice; an
/// image's cut from the pyramid made of it.
private func zoom() {
    guard target == "pdf" || target == "image", let facts = try? renderer.probe(input.path), let width = facts.width,
        let height = facts.height, width > 0, height > 0
    else { return }
    let size = target == "pdf" ? ImageRegion.pageSize(points: (Double(width), Double(height)), dpi: 600) : (width, height)
    guard let full = size else { return }
    var request = RenderRequest(format: .png)
    request.region = ImageRegion(
        x: full.0 / 3, y: full.1 / 3, width: max(1, full.0 / 2), height: max(1, full.1 / 2), outputWidth: 48,
        outputHeight: 40, rotation: 90, mirrored: true, tone: .gray, pageDPI: target == "pdf" ? 600 : nil)
    if target == "pdf" {
        _ = try? renderer.render(input.path, request)
        return
    }
    defer { try? FileManager.default.removeItem(at: pyramid) }
    guard (try? Renderers(limits: limits).image.writePyramid(input.path, to: pyramid.path)) != nil else { return }
    request.region?.fromPyramid = true
    _ = try? Renderers(limits: limits).image.reading(.tiff).render(pyramid.path, request)
}
