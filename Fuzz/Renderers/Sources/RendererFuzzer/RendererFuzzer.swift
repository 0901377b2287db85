// libFuzzer entry point for the renderers: arbitrary bytes, written to a file, probed and rendered
// in-process by the renderer `$DOCPREVIEW_FUZZ_RENDERER` names (video, pdf or image), with small
// limits so each input is quick. A crash, a sanitizer report, a hang past libFuzzer's -timeout or
// a failure that is not a PreviewError is a finding.
import Foundation
import PreviewCore
import PreviewRenderers

private let target = ProcessInfo.processInfo.environment["DOCPREVIEW_FUZZ_RENDERER"] ?? "image"
private let input = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-fuzz-\(getpid())-\(target)")
private let renderer: any Renderer = {
    var limits = Limits()
    limits.jobSeconds = 5
    limits.maxPixels = 4_000_000
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
    // Outcomes are PreviewErrors by type; what matters is that nothing crashes, leaks or hangs.
    _ = try? renderer.probe(input.path)
    _ = try? renderer.render(input.path, RenderRequest(width: 64, height: 64))
    _ = try? renderer.render(input.path, RenderRequest(page: 2, width: 32, format: .png))
    return 0
}
