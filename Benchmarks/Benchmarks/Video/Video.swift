import Benchmark
import BenchmarkInputs
import Foundation
import PreviewCore
import PreviewRenderers

/// `Video:FirstFrame <input>`: open, find the first non-uniform frame, scale and encode a 512 px JPEG.
/// The two 1080p H.264 inputs differ only in length: the times should not.
///
/// `Video:Rendition 10s 1080p` and `… watermarked`: the 10 s 1080p video re-encoded to its 720p
/// rendition, plain and with a share's watermark burned into every frame (a watermarked share's
/// film, issue 70): what the watermark adds to a film.
let benchmarks: @Sendable () -> Void = {
    let renderer = VideoRenderer()
    for (name, file) in [
        ("10s 1080p H.264", "video-10s-1080p.mp4"), ("10min 1080p H.264", "video-10min-1080p.mp4"),
        ("4K HEVC", "video-4k-hevc.mov")
    ] {
        Benchmark("Video:FirstFrame \(name)", configuration: Inputs.configuration()) { _ in
            blackHole(try renderer.render(Inputs.large(file), RenderRequest()))
        }
    }
    for watermark in [nil, Watermark(text: "Shared with North High · 2 Dec 2026")] {
        let name = "Video:Rendition 10s 1080p" + (watermark == nil ? "" : " watermarked")
        Benchmark(name, configuration: Inputs.configuration(maxDuration: .seconds(60), maxIterations: 5)) { _ in
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("rendition-\(UUID().uuidString).mp4").path
            defer { unlink(output) }
            blackHole(try VideoTranscoding().transcode(Inputs.large("video-10s-1080p.mp4"), to: output, shrink: true, watermark: watermark))
        }
    }
}
