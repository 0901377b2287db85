// libFuzzer entry point for the renderers: arbitrary bytes, written to a file, probed and rendered
// in-process by the renderer `$DOCPREVIEW_FUZZ_RENDERER` names (video, pdf or image), with small
// limits so each input is quick; `transcode` makes a video's rendition (libavformat, libavcodec,
// libavfilter, libx264), its HLS ladder (the HLS muxer, fragmented MP4) and its scrubbing thumbnails instead. A crash, a sanitizer report, a hang past libFuzzer's -timeout or
// a failure that is not a PreviewError is a finding.
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
private let renderer: any Renderer = {
    let renderers = Renderers(limits: limits)
    switch target {
    case "video": return renderers.video
    case "pdf": return renderers.pdf
    default: return renderers.image
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
        return 0
    }
    // Outcomes are PreviewErrors by type; what matters is that nothing crashes, leaks or hangs.
    _ = try? renderer.probe(input.path)
    _ = try? renderer.render(input.path, RenderRequest(width: 64, height: 64))
    _ = try? renderer.render(input.path, RenderRequest(page: 2, width: 32, format: .png))
    return 0
}
