import Benchmark
import BenchmarkInputs
import PreviewCore
import PreviewRenderers

/// `Video:FirstFrame <input>`: open, find the first non-uniform frame, scale and encode a 512 px JPEG.
/// The two 1080p H.264 inputs differ only in length: the times should not.
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
}
