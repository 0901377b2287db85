import Benchmark
import BenchmarkInputs
import Foundation
import PreviewCore
import PreviewRenderers

/// `Zoom:…`: IIIF regions in process. A 512 px tile at full size cut from a 100 MP photo's pyramid
/// (built once, before timing), and a 1024² region at 600 dpi of a text page of R's reference manual
/// with the document open (DESIGN §10: warm ≥ 5× `pdftoppm -r 600 -x -y -W -H`).
let benchmarks: @Sendable () -> Void = {
    let pyramid = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-zoom-benchmark.tif").path
    if !FileManager.default.fileExists(atPath: pyramid) {
        _ = try? ImageRenderer().reading(.jpeg).writePyramid(Inputs.large("image-100mp.jpg"), to: pyramid)
    }
    let tiles = ImageRenderer().reading(.tiff)
    let column = Turn(of: 23)
    Benchmark("Zoom:Tile from a 100MP pyramid", configuration: Inputs.configuration()) { _ in
        // A different tile each time, along a row: none is decoded twice in a row.
        var request = RenderRequest()
        request.region = ImageRegion(x: column.next() * 512, y: 4096, width: 512, height: 512, outputWidth: 512, outputHeight: 512, fromPyramid: true)
        blackHole(try tiles.render(pyramid, request))
    }
    let manual = "/usr/share/R/doc/manual/fullrefman.pdf"
    let open = PDFRenderer(documents: PDFDocumentCache(capacity: 1))
    let page = Turn(of: 100)
    Benchmark("Zoom:Page region 600dpi open", configuration: Inputs.configuration()) { _ in
        var request = RenderRequest(page: 300 + page.next())
        request.region = ImageRegion(x: 1024, y: 1536, width: 1024, height: 1024, outputWidth: 1024, outputHeight: 1024, pageDPI: 600)
        blackHole(try open.render(manual, request))
    }
}

/// 0, 1, … `count` - 1, then 0 again: a benchmark's iterations run one at a time.
final class Turn: @unchecked Sendable {
    private let count: Int
    private var value = -1

    init(of count: Int) {
        self.count = count
    }

    func next() -> Int {
        value = (value + 1) % count
        return value
    }
}
