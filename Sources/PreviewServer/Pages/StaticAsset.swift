import HTTPTypes
import Hummingbird
import NIOCore
import PreviewStore

/// A file of the pages' own — a stylesheet or a script, written in this package, never fetched from
/// elsewhere — served at `/assets/{name}` to anyone (it holds nothing of anyone's). Its URL names
/// its content, so browsers keep it for a year and fetch it again when it changes.
struct StaticAsset: Sendable {
    let name: String
    let contentType: String
    let source: String

    static let pathPrefix = "/assets/"

    var path: String { Self.pathPrefix + name }
    /// The URL pages use: the path and a hash of the content.
    var url: String { "\(path)?v=\(BlobHash.of(Array(source.utf8)).hex.prefix(12))" }

    /// Every asset the pages use.
    static let all = [ZoomScript.asset, PageStyle.asset, PageScript.asset, ListScript.asset, DetailScript.asset, MediaScript.asset, ViewerScript.asset]

    static func register(on routes: RouteTable) {
        for asset in all {
            let response = Response(status: .ok, headers: [
                .contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ], body: .init(byteBuffer: ByteBuffer(string: asset.source)))
            routes.add(.get, asset.path) { _, _ in response }
        }
    }
}
