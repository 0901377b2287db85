import Foundation
import GRDB
import PreviewCore
import PreviewDomain

/// What a derivative was made by.
package enum DerivativeOperation: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// A picture of a page, a frame or an image (previews, thumbnails, zoom regions).
    case render
    /// An office, text or CSV document's PDF pivot, which its pages are rendered from.
    case convert
    /// A large picture's tiled pyramid, which its zoom regions are cut from.
    case pyramid
    /// A video's playback files (rendition, ladder, thumbnails track) and their manifest.
    case playback
    /// A paged document's words with their boxes, page by page (JSON).
    case text
}

/// A derivative: (source, operation, parameters, renderer version) → result blob. Like an action
/// cache over the blob store: the same request is never rendered twice.
public struct DerivativeRecord: Codable, Sendable, Equatable {
    /// SHA-256 over the other key fields; the primary key.
    package var key: String
    package var sourceSha256: BlobHash
    package var operation: DerivativeOperation
    /// Canonical JSON of the request.
    package var parameters: String
    package var renderer: String
    public var resultSha256: BlobHash
    package var width: Int
    package var height: Int
    package var createdAt: Date
    /// Made because a client asked for it (a page, a size), not by a job: such derivatives share the
    /// preview budget and are evicted least recently used first. Thumbnails and pivots never are.
    package var onDemand: Bool
    /// When it was last served (at most an hour stale); for eviction.
    package var usedAt: Date

    package init(
        key: String, sourceSha256: BlobHash, operation: DerivativeOperation, parameters: String, renderer: String,
        resultSha256: BlobHash, width: Int, height: Int, createdAt: Date, onDemand: Bool = false, usedAt: Date? = nil
    ) {
        self.key = key
        self.sourceSha256 = sourceSha256
        self.operation = operation
        self.parameters = parameters
        self.renderer = renderer
        self.resultSha256 = resultSha256
        self.width = width
        self.height = height
        self.createdAt = createdAt
        self.onDemand = onDemand
        self.usedAt = usedAt ?? createdAt
    }

    enum CodingKeys: String, CodingKey {
        case key, operation, parameters, renderer, width, height
        case sourceSha256 = "source_sha256"
        case resultSha256 = "result_sha256"
        case createdAt = "created_at"
        case onDemand = "on_demand"
        case usedAt = "used_at"
    }
}

/// What an eviction forgot: on-demand derivatives over their budget, and the blobs that only they used.
public struct PreviewEviction: Sendable, Equatable {
    package var derivatives = 0
    package var bytes = 0
    /// Result blobs of the forgotten derivatives (some may still be used elsewhere).
    package var results: [BlobHash] = []

    package init() {}
}

/// A render or conversion that timed out or crashed its renderer: the same bytes and request fail
/// at once with this error instead of costing a renderer its whole budget again, until someone
/// retries them deliberately (`jobs retry`), which forgets it.
public struct RenderFailure: Codable, Sendable, Equatable {
    /// The derivative key of the render or conversion that failed.
    package var key: String
    package var sourceSha256: BlobHash
    package var code: PreviewError.Code
    package var message: String
    package var createdAt: Date

    package init(key: String, sourceSha256: BlobHash, error: PreviewError, createdAt: Date = Date()) {
        self.key = key
        self.sourceSha256 = sourceSha256
        code = error.code
        message = error.message
        self.createdAt = createdAt
    }

    /// The failure as it is answered again.
    package var error: PreviewError { PreviewError(code, message) }

    enum CodingKeys: String, CodingKey {
        case key, code, message
        case sourceSha256 = "source_sha256"
        case createdAt = "created_at"
    }
}
