import Benchmark
import BenchmarkInputs
import PreviewCore
import PreviewRenderers

/// `Image:Thumbnail <input>`: a 512 px JPEG thumbnail through libvips with shrink-on-load.
/// Peak resident memory should stay flat from 24 to 100 megapixels.
let benchmarks: @Sendable () -> Void = {
    let renderer = ImageRenderer()
    for (name, file) in [("24MP JPEG", "image-24mp.jpg"), ("100MP JPEG", "image-100mp.jpg"), ("24MP PNG", "image-24mp.png")] {
        Benchmark("Image:Thumbnail \(name)", configuration: Inputs.configuration()) { _ in
            blackHole(try renderer.render(Inputs.large(file), RenderRequest()))
        }
    }
}
