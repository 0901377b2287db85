import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// Share links, made and watched with the token (`POST|GET /v1/documents/{id}/shares`,
/// `DELETE /v1/shares/{id}`, `GET /v1/shares/{id}/visits`: each opening and download with its time;
/// `GET /v1/documents/{id}/shares/{share}/visits`: what each visit read and watched, which the list
/// sums up per share); a link is opened by anyone who has it on its page (PreviewWeb's, `/s/{token}`).
struct SharesController {
    let documents: DocumentService
    let settings: ServerSettings

    /// A share as the API shows it (never its token or password).
    struct ShareView: Encodable {
        var shareID: String
        var label: String
        /// The school it was made for.
        var school: String?
        /// `latest`, or the version number it is pinned to.
        var version: String
        var status: ShareRecord.Status
        var createdAt: Date
        var expiresAt: Date?
        var revokedAt: Date?
        var allowDownload: Bool
        var password: Bool
        /// The text whose hits its pages show marked.
        var highlight: String?
        /// The text burned into every picture, page and download it serves.
        var watermark: String?
        /// The kinds of personal data and the terms it paints out.
        var redact: [Redaction.Kind]?
        var redactTerms: [String]?
        var redactKeep: [String]?
        var redactBoxes: [Redaction.DrawnBox]?
        var openedCount: Int
        var lastOpenedAt: Date?
        var downloadCount: Int
        /// While it is live (and was made since links are kept): the link's path, and `link`, the
        /// whole address to give the person.
        var url: String?
        var link: String?
        /// What was read and watched through it, in all (``ShareReadingSummary``), where listed.
        var reading: ShareReadingSummary?

        init(_ share: ShareRecord, origin: String, now: Date, reading: ShareReadingSummary? = nil) {
            shareID = share.id
            label = share.label
            school = share.school
            version = share.version.map(String.init) ?? "latest"
            status = share.status(at: now)
            createdAt = share.createdAt
            expiresAt = share.expiresAt
            revokedAt = share.revokedAt
            allowDownload = share.allowDownload
            password = share.passwordHash != nil
            highlight = share.highlight
            watermark = share.watermark
            (redact, redactTerms, redactKeep) = (share.redaction?.kinds, share.redaction?.terms, share.redaction?.keep)
            redactBoxes = share.redaction?.boxes
            openedCount = share.openedCount
            lastOpenedAt = share.lastOpenedAt
            downloadCount = share.downloadCount
            url = share.linkToken.flatMap { status == .live ? PagePaths.sharePrefix + $0 : nil }
            link = url.map { origin + $0 }
            self.reading = reading
        }
    }

    /// What a redaction finds in a document, page by page (only pages with findings).
    struct RedactionsView: Encodable {
        var documentID: String
        var pages: [DocumentService.PageRedactions]
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/documents/:id/shares") { request, context in
            let id = try context.parameters.require("id")
            let asked = try await JSON.body(
                DocumentService.ShareRequest.self, of: request, limit: 16 * 1024,
                expected: #"{"label", "# + DocumentService.LinkOptions.fields + #", "version"?}"#)
            let documents = documents
            // The password's hash takes a quarter of a second on purpose: not on the cooperative pool.
            let (share, _) = try await documents.share(id, asked)
            ServiceMetrics.shares(event: "created")
            context.logger.info("document shared", metadata: ["preview.document": "\(id)", "preview.share": "\(share.id)"])
            return try JSON.response(ShareView(share, origin: settings.origin(of: request), now: documents.clock.now), status: .created)
        }
        routes.add(.post, "/v1/documents/:id/redactions") { request, context in
            let id = try context.parameters.require("id")
            let asked = try await JSON.body(
                DocumentService.LinkOptions.self, of: request, limit: 16 * 1024,
                expected: #"{"redact"?: [kinds], "redact_terms"?: [texts], "redact_keep"?: [texts], "redact_boxes"?: [boxes]}"#)
            let documents = documents
            guard let pages = try await documents.redactionPreview(asked.redaction ?? Redaction(kinds: []), of: id) else {
                return try JSON.response(TextController.NotYet(documentID: id), status: .accepted, headers: [.retryAfter: "2"])
            }
            return try JSON.response(RedactionsView(documentID: id, pages: pages.filter { !$0.findings.isEmpty }))
        }
        routes.add(.get, "/v1/documents/:id/shares") { request, context in
            let (id, origin) = (try context.parameters.require("id"), settings.origin(of: request))
            let documents = documents
            let shares = try await documents.shares(of: id)
            let readings = try await documents.readingSummaries(of: shares)
            let views = shares.map { ShareView($0, origin: origin, now: documents.clock.now, reading: readings[$0.id]) }
            return try JSON.response(["shares": views])
        }
        routes.add(.get, "/v1/documents/:id/shares/:share/visits") { _, context in
            let (id, share) = (try context.parameters.require("id"), try context.parameters.require("share"))
            let documents = documents
            return try await JSON.response(["visits": try documents.readingVisits(document: id, share: share)])
        }
        routes.add(.delete, "/v1/shares/:id") { _, context in
            let id = try context.parameters.require("id")
            let documents = documents
            try await documents.revokeShare(id)
            ServiceMetrics.shares(event: "revoked")
            return try JSON.response(["share_id": id, "status": "revoked"])
        }
        routes.add(.get, "/v1/shares/:id/visits") { _, context in
            let id = try context.parameters.require("id")
            let documents = documents
            return try await JSON.response(["visits": try documents.visits(ofShare: id)])
        }
    }
}

/// Media URLs of a share's page carry its id under their signature: checked here on every request,
/// they stop working when the share is revoked or expires, the original's bytes are served only by
/// a share that allows its download, and its downloads are counted.
struct ShareGate: Sendable {
    let documents: DocumentService

    /// Admits a request for a share's media: of the `original` (`/content`, refused unless the share
    /// allows downloads), counted as a `download` when it asks for one. Returns the share when it
    /// marks what it serves: everything served for it must carry its marks.
    func admit(share id: String, original: Bool, download: Bool) async throws -> ShareRecord? {
        let documents = documents
        let share = try await documents.admitShareMedia(share: id, original: original, download: download)
        return share.marks ? share : nil
    }
}
