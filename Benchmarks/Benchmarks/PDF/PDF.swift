import Benchmark
import BenchmarkInputs
import Foundation
import PreviewCore
import PreviewRenderers

/// `PDF:Page <n> cold|open`: one page of the 2000-page document rasterised to 1024 px and encoded.
/// Cold parses the document on every call (what a fresh `render` does); open keeps it open between
/// calls, as `batch`, `serve` and `worker` do.
///
/// `PDF:Page 1500 open watermarked`: the same, with a share's watermark burned in.
///
/// `PDF:R manual next page open`: the warm path of a running service in process, on a real text
/// document (R's reference manual, 2,415 pages, from `r-doc-pdf`: `scripts/install-deps --tools`):
/// each call a page not rendered before (301, 302, …), 1024 px JPEG, the document kept open.
let benchmarks: @Sendable () -> Void = {
    let manual = "/usr/share/R/doc/manual/fullrefman.pdf"
    if FileManager.default.fileExists(atPath: manual) {
        let warm = PDFRenderer(documents: PDFDocumentCache(capacity: 1))
        let next = Locked(300)
        Benchmark("PDF:R manual next page open", configuration: Inputs.configuration(maxIterations: 200)) { _ in
            let page = next.withLock { page in
                page = page >= 2415 ? 301 : page + 1
                return page
            }
            blackHole(try warm.render(manual, RenderRequest(page: page, width: 1024)))
        }
    }
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
    // A share's watermark burned into the same open page (issue 70: ≤ 10 ms over the plain page).
    var watermarked = RenderRequest(page: 1500)
    watermarked.watermark = Watermark(text: "Shared with North High · 2 Dec 2026")
    Benchmark("PDF:Page 1500 open watermarked", configuration: Inputs.configuration()) { _ in
        blackHole(try open.render(path, watermarked))
    }
}
