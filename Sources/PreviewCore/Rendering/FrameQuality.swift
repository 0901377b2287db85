/// How well a video frame serves as its poster, measured on the scaled frame: its light, its
/// contrast and how much of it is one flat colour (the ground of a title card), on a grid of at
/// most ~4096 points; how sharp its edges are, along 64 of its rows.
package struct FrameQuality: Sendable, Equatable {
    /// Mean luma (BT.601), 0–255.
    package var mean: Double
    /// Standard deviation of luma: under ``uniformDeviation`` the frame is one colour (black, white, flat).
    package var deviation: Double
    /// The share of points within 6 levels (each of R, G, B) of the most common colour.
    package var flatShare: Double
    /// Edges per 1,000 pixels of the rows looked at: places where luma steps by ≥ 20 levels across
    /// two pixels (a local peak of that step). Motion or focus blur leaves almost none.
    package var edges: Double
    /// The median width in pixels of those edges' ramps (from where luma starts to climb to where
    /// it stops); a blur widens them. 0 without edges.
    package var edgeWidth: Double

    /// A frame whose luma varies less than this (out of 255) is one colour.
    package static let uniformDeviation = 8.0
    /// Light a poster may have: darker is a black or a fade from black, lighter a white or a fade from white.
    package static let exposed = 24.0...232.0
    /// A title card: a flat ground under most of the frame.
    package static let titleCardShare = 0.5
    /// Blurred with fewer edges than this per 1,000 pixels, or wider ones than ``blurredWidth``.
    /// At 512 px, sharp sources measured 10–160 edges 2–4 pixels wide (test patterns, fractal
    /// zooms, a title card's letters, the corpus's phone clips); box blurs of 8–10 pixels at
    /// 640 px left none, or edges 31 pixels wide.
    package static let blurredEdges = 2.0
    package static let blurredWidth = 6.0

    package init(_ pixels: PixelBuffer) {
        guard pixels.width >= 3, pixels.height >= 3, pixels.bands >= 3 else {
            (mean, deviation, flatShare, edges, edgeWidth) = (0, 0, 1, 0, 0)
            return
        }
        let (width, height, bands) = (pixels.width, pixels.height, pixels.bands)
        let step = max(1, Int((Double(width * height) / 4096).squareRoot()))
        func luma(_ x: Int, _ y: Int) -> Double {
            let i = (y * width + x) * bands
            return 0.299 * Double(pixels.bytes[i]) + 0.587 * Double(pixels.bytes[i + 1]) + 0.114 * Double(pixels.bytes[i + 2])
        }
        var (sum, sumOfSquares, count) = (0.0, 0.0, 0.0)
        var colours = [Int: Int]()
        var points: [(index: Int, colour: Int)] = []  // each point's first byte, and its colour to 16 levels a band
        for y in stride(from: 1, to: height - 1, by: step) {
            for x in stride(from: 1, to: width - 1, by: step) {
                let centre = luma(x, y)
                sum += centre
                sumOfSquares += centre * centre
                count += 1
                let i = (y * width + x) * bands
                let colour = Int(pixels.bytes[i] >> 4) << 8 | Int(pixels.bytes[i + 1] >> 4) << 4 | Int(pixels.bytes[i + 2] >> 4)
                colours[colour, default: 0] += 1
                points.append((i, colour))
            }
        }
        mean = sum / count
        deviation = max(0, sumOfSquares / count - mean * mean).squareRoot()
        (edges, edgeWidth) = Self.edges(width: width, height: height, luma: luma)
        // The most common colour, to 16 levels a band; then the points within 6 levels of its average.
        let modal = colours.max { $0.value < $1.value }?.key ?? 0
        var ground = (0.0, 0.0, 0.0, 0.0)
        for (i, colour) in points where colour == modal {
            ground = (
                ground.0 + Double(pixels.bytes[i]), ground.1 + Double(pixels.bytes[i + 1]), ground.2 + Double(pixels.bytes[i + 2]), ground.3 + 1
            )
        }
        let colour = (ground.0 / ground.3, ground.1 / ground.3, ground.2 / ground.3)
        let flat = points.count { i, _ in
            abs(Double(pixels.bytes[i]) - colour.0) <= 6 && abs(Double(pixels.bytes[i + 1]) - colour.1) <= 6
                && abs(Double(pixels.bytes[i + 2]) - colour.2) <= 6
        }
        flatShare = Double(flat) / count
    }

    /// The edges along 64 rows (``edges``, ``edgeWidth``).
    private static func edges(width: Int, height: Int, luma: (Int, Int) -> Double) -> (perThousand: Double, medianWidth: Double) {
        guard width >= 5, height >= 5 else { return (0, 0) }
        let rows = min(64, height - 4)
        var widths: [Int] = []
        var looked = 0
        var row = [Double](repeating: 0, count: width)
        var step = [Double](repeating: 0, count: width)
        for index in 0..<rows {
            let y = 2 + index * (height - 5) / max(1, rows - 1)
            for x in 0..<width { row[x] = luma(x, y) }
            for x in 1..<(width - 1) { step[x] = row[x + 1] - row[x - 1] }
            looked += width - 4
            for x in 2..<(width - 2) where abs(step[x]) >= 20 && abs(step[x]) >= abs(step[x - 1]) && abs(step[x]) >= abs(step[x + 1]) {
                let rising = step[x] > 0
                func climbs(_ from: Int, _ to: Int) -> Bool { (rising ? row[to] - row[from] : row[from] - row[to]) > 0.5 }
                var (start, end) = (x, x)
                while start > 0, climbs(start - 1, start) { start -= 1 }
                while end < width - 1, climbs(end, end + 1) { end += 1 }
                widths.append(end - start)
            }
        }
        guard !widths.isEmpty else { return (0, 0) }
        return (Double(widths.count) * 1000 / Double(looked), Double(widths.sorted()[widths.count / 2]))
    }

    /// One colour: black, white, a flat leader.
    package var isUniform: Bool { deviation < Self.uniformDeviation }

    /// Good enough to stop looking: lit, with contrast, not a title card, not blurred.
    package var isPoster: Bool {
        !isUniform && Self.exposed.contains(mean) && flatShare < Self.titleCardShare && !isBlurred
    }

    /// Few edges, or wide ones.
    package var isBlurred: Bool { edges < Self.blurredEdges || edgeWidth > Self.blurredWidth }

    /// 0–1, to choose among frames none of which is good enough: light near mid-grey, contrast,
    /// little flat ground, sharp edges, each a factor.
    package var score: Double {
        let light = max(0, 1 - ((mean - 128) / 128) * ((mean - 128) / 128))
        let contrast = min(1, deviation / 32)
        let sharp = min(1, edges / (5 * Self.blurredEdges)) * min(1, Self.blurredWidth / max(edgeWidth, 1) / 1.5)
        return light * contrast * max(0, 1 - flatShare) * sharp
    }

    /// Whether `later` (a moment after this frame) shows the same light and contrast: the frame is
    /// not inside a fade or a flash.
    package func isSettled(against later: FrameQuality) -> Bool {
        abs(later.mean - mean) <= 3 && abs(later.deviation - deviation) <= 3
    }
}
