/// Decoded pixels handed from one library to another: 8-bit samples, interleaved, rows packed
/// (stride = width × bands). RGB has 3 bands, RGBA 4.
package struct PixelBuffer: Sendable {
    package var width: Int
    package var height: Int
    package var bands: Int
    package var bytes: [UInt8]

    package init(width: Int, height: Int, bands: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * bands, "pixel buffer size does not match its dimensions")
        self.width = width
        self.height = height
        self.bands = bands
        self.bytes = bytes
    }

    /// Mean and standard deviation of luma (BT.601), sampled on a grid of at most ~4096 points.
    /// Low deviation means a uniform frame (black, white, one flat colour).
    package func lumaStatistics() -> (mean: Double, deviation: Double) {
        guard width > 0, height > 0, bands >= 3 else { return (0, 0) }
        let step = max(1, Int((Double(width * height) / 4096).squareRoot()))
        var sum = 0.0
        var sumOfSquares = 0.0
        var count = 0.0
        for y in stride(from: 0, to: height, by: step) {
            for x in stride(from: 0, to: width, by: step) {
                let i = (y * width + x) * bands
                let luma = 0.299 * Double(bytes[i]) + 0.587 * Double(bytes[i + 1]) + 0.114 * Double(bytes[i + 2])
                sum += luma
                sumOfSquares += luma * luma
                count += 1
            }
        }
        let mean = sum / count
        return (mean, max(0, sumOfSquares / count - mean * mean).squareRoot())
    }
}
