import Foundation

/// What our IIIF Image API 3.0 service offers (level 2, with mirroring, upscaling, WebP), and its
/// `info.json`.
package enum IIIFService {
    /// Where the service's images are: `/iiif/3/{identifier}/…`.
    package static let prefix = "/iiif/3/"
    /// The resolution a page's full size is given at, unless configured.
    package static let defaultDPI = 600
    /// The image information document of the image `id` (its full URL) of `width`×`height`.
    static func information(id: String, width: Int, height: Int) -> Information {
        Information(
            id: id, width: width, height: height, maxWidth: IIIFLimits.maxWidth, maxHeight: IIIFLimits.maxHeight,
            maxArea: IIIFLimits.maxArea,
            tiles: [.init(width: IIIFLimits.tile, height: IIIFLimits.tile, scaleFactors: IIIFLimits.scaleFactors(width: width, height: height))])
    }

    struct Information: Encodable {
        struct Tiles: Encodable {
            var width: Int
            var height: Int
            var scaleFactors: [Int]
        }
        var context = "http://iiif.io/api/image/3/context.json"
        var id: String
        var type = "ImageService3"
        var `protocol` = "http://iiif.io/api/image"
        var profile = "level2"
        var width: Int
        var height: Int
        var maxWidth: Int
        var maxHeight: Int
        var maxArea: Int
        var tiles: [Tiles]
        var extraFormats = ["webp"]
        var extraFeatures = ["mirroring", "sizeUpscaling"]

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case id, type, `protocol`, profile, width, height, maxWidth, maxHeight, maxArea, tiles, extraFormats, extraFeatures
        }
    }

    /// `{document_id}`, `{document_id}~v{n}` (that version), `…~p{n}` (page n), in that order; a
    /// signature (`~s…`, ``SignedURLs/sign(iiif:expires:)``, checked before the request gets here) ends it.
    struct Identifier: Equatable {
        var document: String
        var version: Int?
        var page: Int?

        init?(_ text: String) {
            let unsigned = text.range(of: "~s").map { text[..<$0.lowerBound] } ?? text[...]
            let parts = unsigned.split(separator: "~", omittingEmptySubsequences: false)
            guard let first = parts.first, !first.isEmpty, parts.count <= 3 else { return nil }
            document = String(first)
            for part in parts.dropFirst() {
                guard let marker = part.first, let number = Int(part.dropFirst()), number >= 1, part.dropFirst().allSatisfy(\.isNumber) else {
                    return nil
                }
                switch marker {
                case "v" where version == nil && page == nil: version = number
                case "p" where page == nil: page = number
                default: return nil
                }
            }
        }
    }
}
