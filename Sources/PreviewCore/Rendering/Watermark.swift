import Foundation

/// A text burned into a render's pixels (a share's recipient and date): a stamp of it, turned 30°,
/// repeated across the whole picture in staggered rows, darkening light pixels and lightening dark
/// ones, so it shows on paper and on photographs. The pattern is laid out on the whole picture, so
/// the tiles of a zoom carry the same pattern as the page they are cut from.
public struct Watermark: Sendable, Hashable, Codable {
    /// What is written.
    package var text: String

    public init(text: String) {
        self.text = text
    }

    /// The longest text written (a longer recipient is cut).
    package static let maxText = 96
    /// The stamp's angle, degrees anticlockwise.
    package static let angle = 30.0
    /// How strongly the stamp's ink covers a pixel, of 255.
    package static let opacity = 80

    /// "Shared with North High · 2 Dec 2026": the text of a share for `label` made `on`.
    package static func sharedWith(_ label: String, on date: Date) -> String {
        let day = date.formatted(Date.FormatStyle(timeZone: .gmt).day().month(.abbreviated).year().locale(Locale(identifier: "en_GB")))
        let suffix = " · \(day)"
        let room = maxText - "Shared with ".count - suffix.count
        let name = label.count > room ? label.prefix(room - 1) + "…" : Substring(label)
        return "Shared with \(name)\(suffix)"
    }

    /// Where the stamps fall on a render of `output` size: the text's height, the repeat of the
    /// pattern (its cells), and the render's place in it, all in output pixels.
    package struct Layout: Sendable, Equatable {
        /// The text's line height.
        package var fontPixels: Int
        /// A cell: one stamp, centred; odd rows are shifted by half a cell.
        package var cellWidth: Int
        package var cellHeight: Int
        /// The render's top-left corner in the pattern (the pattern's origin is the picture's).
        package var originX: Int
        package var originY: Int
    }

    /// The layout on a render whose whole picture lies at `whole` (``RenderRequest/wholePicture(width:height:)``),
    /// once the stamp measures `stamp` (its turned size, for a text of `fontPixels`).
    package func layout(
        whole: (width: Double, height: Double, x: Double, y: Double), fontPixels: Int, stamp: (width: Int, height: Int)
    ) -> Layout {
        Layout(
            fontPixels: fontPixels, cellWidth: max(1, stamp.width + 2 * fontPixels), cellHeight: max(1, stamp.height + fontPixels),
            originX: Int(whole.x.rounded()), originY: Int(whole.y.rounded()))
    }

    /// The text's height over a whole picture of `whole` size (at the render's scale): 3.5 % of its
    /// longer side, at least 10 px.
    package func fontPixels(whole: (width: Double, height: Double, x: Double, y: Double)) -> Int {
        // Bounded first: a region's scale is a stranger's to choose.
        Int(min(max(max(whole.width, whole.height) * 0.035, 10), Double(RenderRequest.maxEdge)).rounded())
    }

    /// Burns the stamp `mask` (`stampWidth` wide, one byte of coverage a pixel) into packed RGB
    /// `pixels` of a `width`×`height` render as `layout` places it.
    package static func burn(
        _ mask: [UInt8], stampWidth: Int, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int, layout: Layout
    ) {
        guard out.count == width * height * 3 else { return }
        forEachCovered(mask, stampWidth: stampWidth, width: width, height: height, layout: layout) { pixel, coverage in
            let at = pixel * 3
            let (red, green, blue) = (Int(out[at]), Int(out[at + 1]), Int(out[at + 2]))
            // Dark ink on light pixels, light ink on dark ones.
            let ink = (red * 3 + green * 6 + blue) / 10 > 140 ? 32 : 230
            out[at] = UInt8((red * (255 - coverage) + ink * coverage) / 255)
            out[at + 1] = UInt8((green * (255 - coverage) + ink * coverage) / 255)
            out[at + 2] = UInt8((blue * (255 - coverage) + ink * coverage) / 255)
        }
    }

    /// Calls `body` with every pixel (its index, row by row) of a `width`×`height` render that the
    /// stamp `mask` covers as `layout` places it, and its coverage of 255 (the opacity applied).
    /// Only the stamps' own columns are visited (a cell is wider than its stamp, so none overlaps the next).
    @inline(__always)
    package static func forEachCovered(
        _ mask: [UInt8], stampWidth: Int, width: Int, height: Int, layout: Layout, _ body: (_ pixel: Int, _ coverage: Int) -> Void
    ) {
        guard stampWidth > 0, mask.count % stampWidth == 0 else { return }
        let stampHeight = mask.count / stampWidth
        let (cellWidth, cellHeight) = (layout.cellWidth, layout.cellHeight)
        guard cellWidth >= stampWidth else { return }
        let insetX = (cellWidth - stampWidth) / 2
        let insetY = (cellHeight - stampHeight) / 2
        mask.withUnsafeBufferPointer { mask in
            for row in 0..<height {
                let patternY = row + layout.originY
                let band = floorDivision(patternY, cellHeight)
                let maskRow = patternY - band * cellHeight - insetY
                guard maskRow >= 0, maskRow < stampHeight else { continue }
                // Pixel 0's place in the pattern's row, odd rows shifted by half a cell.
                let patternX = layout.originX + (band & 1 == 1 ? cellWidth / 2 : 0)
                var cell = floorDivision(patternX - insetX, cellWidth)
                while true {
                    // Where this cell's stamp starts in the render's row.
                    let start = cell * cellWidth + insetX - patternX
                    if start >= width { break }
                    let (from, to) = (max(0, start), min(width, start + stampWidth))
                    if from < to {
                        let maskBase = maskRow * stampWidth - start
                        for column in from..<to {
                            let coverage = Int(mask[maskBase + column]) * opacity / 255
                            if coverage > 0 { body(row * width + column, coverage) }
                        }
                    }
                    cell += 1
                }
            }
        }
    }

    /// `value` divided by a positive `divisor`, rounded down (towards −∞).
    private static func floorDivision(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

/// What a share draws over everything it serves: its watermark, and the boxes its redaction paints
/// out of one page or picture (fractions of it: ``RenderRequest/redactions``).
package struct RenderMarks: Sendable, Hashable {
    package var watermark: Watermark?
    package var redactions: [[Double]]?

    package init(watermark: Watermark? = nil, redactions: [[Double]]? = nil) {
        (self.watermark, self.redactions) = (watermark, redactions)
    }

    /// No marks.
    package static let none = RenderMarks()

    /// `request` carrying these marks; a region's laid out on the whole picture of `canvas` size.
    package func applied(to request: RenderRequest, canvas: RenderRequest.Canvas? = nil) -> RenderRequest {
        var marked = request
        marked.watermark = watermark
        marked.redactions = redactions.flatMap { $0.isEmpty ? nil : $0 }
        marked.canvas = marked.isMarked && marked.region != nil ? canvas : nil
        return marked
    }
}

/// A watermark laid over every frame of a film of one size: each pixel's coverage, worked out once
/// (``Watermark/forEachCovered(_:stampWidth:width:height:layout:_:)``) and burned into each decoded
/// frame's luma before it is encoded.
package struct FrameMark: Sendable {
    /// Coverage of 255 per pixel, row by row.
    package let coverage: [UInt8]
    package let width: Int
    package let height: Int

    /// The mark of a stamp `mask` (`stampWidth` wide) laid out by `layout` on frames of `width`×`height`.
    package init(_ mask: [UInt8], stampWidth: Int, width: Int, height: Int, layout: Watermark.Layout) {
        var coverage = [UInt8](repeating: 0, count: width * height)
        Watermark.forEachCovered(mask, stampWidth: stampWidth, width: width, height: height, layout: layout) { pixel, covered in
            coverage[pixel] = UInt8(covered)
        }
        (self.coverage, self.width, self.height) = (coverage, width, height)
    }

    /// Burns the mark into an 8-bit luma plane of the mark's size (limited range, `linesize` bytes a
    /// row): dark ink on light pixels, light ink on dark ones, as ``Watermark/burn(_:stampWidth:into:width:height:layout:)``.
    package func burn(luma plane: UnsafeMutablePointer<UInt8>, linesize: Int) {
        coverage.withUnsafeBufferPointer { coverage in
            for row in 0..<height {
                let line = plane + row * linesize
                let marks = row * width
                for column in 0..<width {
                    let covered = Int(coverage[marks + column])
                    guard covered > 0 else { continue }
                    let luma = Int(line[column])
                    // The RGB burn's inks (32 and 230 of 255) and threshold (140) in limited range.
                    let ink = luma > 136 ? 43 : 213
                    line[column] = UInt8((luma * (255 - covered) + ink * covered) / 255)
                }
            }
        }
    }
}
