import Foundation
import PreviewCore

/// What a fetch child is asked: one link, where to put it, and the bounds.
package struct FetchOrder: Codable, Sendable {
    package var url: String
    package var route: DownloadLink.Route
    /// The child's only writable folder; the download lands in it.
    package var workspace: String
    package var maxBytes: Int
    package var seconds: Double
    package var policy: FetchAddressPolicy
    /// The `yt-dlp` program, or nil where it is not installed (extractor links then fail, retryably).
    package var extractor: String?
    /// Set when the link's card is wanted rather than its video (``CardFetch``); `maxBytes` then
    /// bounds a linked file.
    package var card: CardOrder?

    package init(
        url: String, route: DownloadLink.Route, workspace: String, maxBytes: Int, seconds: Double, policy: FetchAddressPolicy, extractor: String?,
        card: CardOrder? = nil
    ) {
        self.url = url
        self.route = route
        self.workspace = workspace
        self.maxBytes = maxBytes
        self.seconds = seconds
        self.policy = policy
        self.extractor = extractor
        self.card = card
    }
}

/// How a link's card is made: the site whose rules apply, its oEmbed address, and the bounds.
package struct CardOrder: Codable, Sendable {
    package var site: LinkSite
    /// The site's oEmbed answer about the link (nil: the page's discovery link, if any).
    package var oEmbed: String?
    /// Where the site's embed widget reads a post (X's), without the post's id.
    package var embedData: String?
    package var maxPageBytes: Int
    package var maxPictureBytes: Int

    package init(site: LinkSite, oEmbed: String?, embedData: String?, maxPageBytes: Int, maxPictureBytes: Int) {
        (self.site, self.oEmbed, self.embedData, self.maxPageBytes, self.maxPictureBytes) = (site, oEmbed, embedData, maxPageBytes, maxPictureBytes)
    }
}

/// What a fetch child answers: the file it wrote and its title (or the link's card, its picture
/// and a linked file), or why not.
package struct FetchReply: Codable, Sendable {
    package var file: String?
    package var card: LinkCard?
    /// The card's picture, fetched (not yet known to be an image: its bytes are checked by the parent).
    package var picture: String?
    /// Why the card has no picture although it names one (a refused address, too large).
    package var pictureCode: String?
    package var pictureMessage: String?
    /// The video's title (the extractor's), or the file name of a direct link.
    package var title: String?
    package var code: String?
    package var message: String?
    /// Whether another attempt later may succeed (a site down, a time-out), as opposed to a link
    /// that can never give a video (404, private address, too large, no video).
    package var retryable: Bool

    init(
        file: String? = nil, card: LinkCard? = nil, title: String? = nil, code: String? = nil, message: String? = nil, retryable: Bool
    ) {
        (self.file, self.card, self.title, self.code, self.message, self.retryable) = (file, card, title, code, message, retryable)
    }

    package static func success(file: String, title: String) -> FetchReply {
        FetchReply(file: file, title: title, retryable: false)
    }

    /// A card; `file`, a file the link is (for its preview); `picture` the card's, or why not.
    package static func card(_ card: LinkCard, file: String?, picture: Result<String, FetchFailure>?) -> FetchReply {
        var reply = FetchReply(file: file, card: card, retryable: false)
        switch picture {
        case let .success(path): reply.picture = path
        case let .failure(failure): (reply.pictureCode, reply.pictureMessage) = (failure.error.code.rawValue, failure.error.message)
        case nil: break
        }
        return reply
    }

    package static func failure(_ failure: FetchFailure) -> FetchReply {
        FetchReply(code: failure.error.code.rawValue, message: failure.error.message, retryable: failure.retryable)
    }

    /// The failure (nil on success).
    package var failure: FetchFailure? {
        guard file == nil && card == nil else { return nil }
        return FetchFailure(
            error: PreviewError(code.flatMap(PreviewError.Code.init(rawValue:)) ?? .internal, message ?? "The download failed."),
            retryable: retryable)
    }
}

/// A failure of a fetch, and whether it is worth another attempt.
package struct FetchFailure: Error, Sendable {
    package var error: PreviewError
    /// Whether another attempt later may succeed (a site down, a time-out), as opposed to a link
    /// that can never give a video (404, private address, too large, no video).
    package var retryable: Bool

    package init(error: PreviewError, retryable: Bool) {
        self.error = error
        self.retryable = retryable
    }

    package static func permanent(_ code: PreviewError.Code, _ message: String) -> FetchFailure {
        FetchFailure(error: PreviewError(code, message), retryable: false)
    }

    package static func transient(_ code: PreviewError.Code, _ message: String) -> FetchFailure {
        FetchFailure(error: PreviewError(code, message), retryable: true)
    }

    /// - Parameter what: what was fetched ("video", "page", "picture").
    static func tooLarge(_ maxBytes: Int, what: String = "video") -> FetchFailure {
        permanent(.fileTooLarge, "The \(what) is larger than the \(Limits.describe(byteCount: maxBytes)) limit.")
    }

    static func privateAddress(_ reason: String) -> FetchFailure {
        permanent(.privateAddress, "The link leads to an address that is not on the public Internet (\(reason)).")
    }

    /// The failure an HTTP status from the site means.
    static func status(_ status: Int) -> FetchFailure {
        // A redirect is answered as such only where it was not followed: to another scheme than http(s).
        if (300..<400).contains(status) { return permanent(.linkFailed, "The link redirects to an address that is not http or https.") }
        let text = "The site answered \(status) (\(HTTPStatusText.phrase(status)))."
        return [408, 425, 429].contains(status) || status >= 500 ? transient(.linkFailed, text) : permanent(.linkFailed, text)
    }
}

enum HTTPStatusText {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: status >= 500 ? "server error" : "client error"
        }
    }
}
