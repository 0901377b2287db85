// libFuzzer entry point for what a stranger's request makes the server compute before any work:
// a IIIF image request against a page's size (from page boxes as large as a PDF can declare) and
// a Range header against a blob's size. Built by `scripts/fuzz request` with swiftc, together with
// PreviewCore's sources and the server's pure parsers (IIIFImageRequest, IIIFLimits, ByteRange).
// A trap here is a trap of the whole server: any one is a finding, as is a result outside the image.
import Foundation
import PreviewCore

/// Page boxes a stranger's PDF can declare (points), including the held-out extremes.
let extremes: [(Double, Double)] = [
    (612, 792), (2_147_483_647, 2_147_483_647), (612, 5e18), (612, 2_147_483_647), (1, 1),
    (0.01, 0.01), (1e308, 1e308), (.infinity, 1), (.nan, 612), (-612, 792), (14_400, 14_400)
]
let resolutions = [72, 150, 600, 2400]

/// Input lines: `region/size/rotation/file`, a page box `width height` in points (else one of
/// ``extremes``), a `Range` header, a blob's size in bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let selector = Int(bytes.first ?? 0)
    let box = lines.count > 1 ? lines[1].split(separator: " ").compactMap { Double($0) } : []
    let points = box.count == 2 ? (box[0], box[1]) : extremes[selector % extremes.count]
    let dpi = resolutions[(selector / extremes.count) % resolutions.count]
    if let full = ImageRegion.pageSize(points: (width: points.0, height: points.1), dpi: dpi) {
        check(
            full.width >= 1 && full.height >= 1 && full.width <= ImageRegion.maxSide && full.height <= ImageRegion.maxSide,
            "a page size outside the bounds")
        let segments = (lines.first ?? "").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count == 4,
            let request = try? IIIFImageRequest(
                region: segments[0], size: segments[1], rotation: segments[2], file: segments[3],
                width: full.width, height: full.height)
        {
            let region = request.region
            check(region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0, "an empty or negative region")
            check(region.x + region.width <= full.width && region.y + region.height <= full.height, "a region outside the image")
            check(
                region.outputWidth > 0 && region.outputHeight > 0 && region.outputWidth <= IIIFLimits.maxWidth
                    && region.outputHeight <= IIIFLimits.maxHeight && region.outputWidth * region.outputHeight <= IIIFLimits.maxArea,
                "an answer outside the limits")
            _ = request.isCanonicalTile(width: full.width, height: full.height)
        }
    }
    let size = lines.count > 3 ? max(0, Int(lines[3]) ?? 0) : Int.max
    switch ByteRange(header: lines.count > 2 ? lines[2] : nil, size: size) {
    case let .part(range): check(range.lowerBound >= 0 && range.lowerBound <= range.upperBound && range.upperBound < size, "a range outside the blob")
    case .whole, .unsatisfiable: break
    }
    return 0
}

func check(_ condition: Bool, _ message: String) {
    if !condition { fatalError("fuzz finding: \(message)") }
}
