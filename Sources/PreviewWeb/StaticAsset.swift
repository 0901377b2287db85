import HTTPTypes
import Hummingbird
import NIOCore
import PreviewServer
import PreviewDomain

/// A file of the pages' own — a stylesheet or a script of `web/`, embedded in the binary when
/// it is built, never fetched from elsewhere — served at `/assets/{name}` to anyone (it holds nothing
/// of anyone's). Its URL names its content, so browsers keep it for a year and fetch it again when it changes.
struct StaticAsset: Sendable {
    let name: String
    let contentType: String
    let source: String

    init(name: String, contentType: String, bytes: [UInt8]) {
        (self.name, self.contentType, source) = (name, contentType, String(decoding: bytes, as: UTF8.self))
    }

    static func script(_ name: String, _ bytes: [UInt8]) -> StaticAsset {
        StaticAsset(name: name, contentType: "text/javascript; charset=utf-8", bytes: bytes)
    }

    /// The stylesheet of every page.
    static let style = StaticAsset(name: "pages.css", contentType: "text/css; charset=utf-8", bytes: PackageResources.pages_css)
    /// What the other scripts share (`DocPreview`).
    static let common = script("pages.js", PackageResources.pages_js)
    /// The one way the pages upload a file (`DocPreview.upload`).
    static let upload = script("upload.js", PackageResources.upload_js)
    static let list = script("list.js", PackageResources.list_js)
    static let detail = script("detail.js", PackageResources.detail_js)
    /// Links' cards under a description (`GET /v1/links/preview`).
    static let cards = script("cards.js", PackageResources.cards_js)
    static let media = script("media.js", PackageResources.media_js)
    static let viewer = script("viewer.js", PackageResources.viewer_js)
    static let zoom = script("zoom.js", PackageResources.zoom_js)
    static let plays = script("plays.js", PackageResources.plays_js)
    static let clip = script("clip.js", PackageResources.clip_js)
    /// What a share's page reports of its reading (`POST /s/{token}/reading`).
    static let reading = script("reading.js", PackageResources.reading_js)

    var path: String { PagePaths.assetPrefix + name }
    /// The URL pages use: the path and a hash of the content.
    var url: String { "\(path)?v=\(BlobHash.of(Array(source.utf8)).hex.prefix(12))" }

    /// Every asset the pages use.
    static let all = [style, common, upload, list, detail, cards, media, viewer, zoom, plays, clip, reading]

    static func register(on routes: RouteTable) {
        for asset in all {
            let response = Response(
                status: .ok,
                headers: [
                    .contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable",
                    .contentTypeOptions: "nosniff"
                ], body: .init(byteBuffer: ByteBuffer(string: asset.source)))
            routes.add(.get, asset.path) { _, _ in response }
        }
    }
}
