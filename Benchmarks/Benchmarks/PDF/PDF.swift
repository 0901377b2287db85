import Benchmark
import BenchmarkInputs
import PreviewCore
import PreviewRenderers

/// `PDF:Page <n> cold|open`: one page of the 2000-page document rasterised to 1024 px and encoded.
/// Cold parses the document on every call (what a fresh `render` does); open keeps it open between
/// calls, as `batch`, `serve` and `worker` do.
let benchmarks: @Sendable () -> Void = {
    let path = Inputs.large("document-2000-pages.pdf")
    let cold = PDFRenderer()
    let open = PDFRenderer(documents: PDFDocumentCache(capacity: 1))
    for page in [1, 1500] {
        let request = RenderRequest(page: page)
        Benchmark("PDF:Page \(page) cold", configuration: Inputs.configuration()) { _ in
            blackHole(try cold.render(path, request))
        }
        Benchmark("PDF:Page \(page) open", configuration: Inputs.configuration()) { _ in
            blackHole(try open.render(path, request))
        }
    }
}
