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
    /// `pixels` of a `width`×`height` render as `layout` places it. Only the stamps' own columns are
    /// visited (a cell is wider than its stamp, so none overlaps the next).
    package static func burn(
        _ mask: [UInt8], stampWidth: Int, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int, layout: Layout
    ) {
        guard stampWidth > 0, mask.count % stampWidth == 0, out.count == width * height * 3 else { return }
        let stampHeight = mask.count / stampWidth
        let (cellWidth, cellHeight) = (layout.cellWidth, layout.cellHeight)
        guard cellWidth >= stampWidth else { return }
        let insetX = (cellWidth - stampWidth) / 2
        let insetY = (cellHeight - stampHeight) / 2
        do {
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
                                guard coverage > 0 else { continue }
                                let at = (row * width + column) * 3
                                let (red, green, blue) = (Int(out[at]), Int(out[at + 1]), Int(out[at + 2]))
                                // Dark ink on light pixels, light ink on dark ones.
                                let ink = (red * 3 + green * 6 + blue) / 10 > 140 ? 32 : 230
                                out[at] = UInt8((red * (255 - coverage) + ink * coverage) / 255)
                                out[at + 1] = UInt8((green * (255 - coverage) + ink * coverage) / 255)
                                out[at + 2] = UInt8((blue * (255 - coverage) + ink * coverage) / 255)
                            }
                        }
                        cell += 1
                    }
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
