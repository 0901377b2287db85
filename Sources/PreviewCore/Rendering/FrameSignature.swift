/// What one decoded frame looks like to the cut finder: a coarse grid of its light and colour,
/// cheap to take from the decoder's planes and cheap to compare.
package struct FrameSignature: Sendable, Equatable {
    /// Columns and rows of each plane's grid.
    package static let columns = 32
    package static let rows = 18

    package var seconds: Double
    /// The mean (0–255) of each cell of a ``columns`` × ``rows`` grid, row by row, of Y, then U,
    /// then V; a byte a cell, so 30 min of frames at 30 a second take about 93 MB.
    package var cells: [UInt8]

    package init(seconds: Double, cells: [UInt8]) {
        self.seconds = seconds
        self.cells = cells
    }

    /// How different two frames are, 0–1: the mean step of their cells, as a share of the range.
    package func change(to other: FrameSignature) -> Double {
        var sum: Float = 0
        for cell in cells.indices { sum += abs(Float(cells[cell]) - Float(other.cells[cell])) }
        return Double(sum) / Double(cells.count * 255)
    }

    /// ``change(to:)`` over the cells the two grids share when `other` is moved `across` cells
    /// right and `down` cells down (what a pan of that much would leave the same).
    func shiftedChange(to other: FrameSignature, across: Int, down: Int) -> Double {
        let (columns, rows) = (Self.columns, Self.rows)
        var sum: Float = 0
        var count = 0
        for plane in 0..<3 {
            let base = plane * columns * rows
            for row in max(0, -down)..<min(rows, rows - down) {
                for column in max(0, -across)..<min(columns, columns - across) {
                    sum += abs(Float(cells[base + row * columns + column]) - Float(other.cells[base + (row + down) * columns + column + across]))
                    count += 1
                }
            }
        }
        return count > 0 ? Double(sum) / Double(count * 255) : 0
    }

    /// The cells as numbers to compute with.
    var values: [Float] { cells.map(Float.init) }

    /// The standard deviation of the luma grid: under ``PlayCuts/flatDeviation`` the frame is one
    /// colour (the black or white middle of a fade).
    var deviation: Double {
        let luma = cells.prefix(Self.columns * Self.rows).map(Float.init)
        let mean = luma.reduce(0, +) / Float(luma.count)
        let variance = luma.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(luma.count)
        return Double(variance.squareRoot())
    }

    /// One colour, black or white: the middle of a fade through it.
    var isBlank: Bool {
        deviation < PlayCuts.flatDeviation && (lightness < PlayCuts.blackest || lightness > PlayCuts.whitest)
    }

    /// The mean of the luma grid, 0–255.
    var lightness: Double {
        Double(cells.prefix(Self.columns * Self.rows).reduce(0) { $0 + Int($1) }) / Double(Self.columns * Self.rows)
    }
}
