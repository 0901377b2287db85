import PreviewCore

/// The numbers of our IIIF images: their tiles and the largest answer. Pure, so that the request
/// parser (``IIIFImageRequest``) builds alone, as `scripts/fuzz request` builds it.
enum IIIFLimits {
    /// The tile side clients are told to ask for.
    static let tile = ImageRegion.zoomTile
    /// The largest answer: 4096 px a side, 16.7 megapixels (what iOS and browsers' canvases take).
    static let maxWidth = 4096
    static let maxHeight = 4096
    static let maxArea = 4096 * 4096

    /// 1, 2, 4… up to the first factor at which the whole image fits in one tile.
    static func scaleFactors(width: Int, height: Int) -> [Int] {
        var factors = [1]
        while max(width, height) > tile * factors.last! { factors.append(factors.last! * 2) }
        return factors
    }
}
