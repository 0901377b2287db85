import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import PreviewCore
import PreviewDocuments
import PreviewStore

/// Share links, made and watched with the token (`POST|GET /v1/documents/{id}/shares`,
/// `DELETE /v1/shares/{id}`, `GET /v1/shares/{id}/visits`: each opening and download with its time), and opened by anyone who has one (`GET|POST /s/{token}`, the
/// ``SharedPage``).
struct SharesController {
    let documents: DocumentService
    let offload: Offload
    let signed: SignedURLs
    let settings: ServerSettings
    let logger: Logger
    /// Wrong passwords, per client address (the 6th within the window, a minute by default, is
    /// refused) and per share (the 21st: one guesser alone cannot lock a share's visitors out,
    /// guessers from many addresses are still slowed). A try is counted before its hash and given
    /// back when right, so concurrent guesses get no more tries than sequential ones; one share's
    /// guessers never lock out another share.
    let perShare: SignInThrottle
    let perAddress: SignInThrottle
    /// Password checks waiting for or on the hashes lane; past ``maxPasswordChecks`` a try is
    /// answered 503 at once, so a flood from many addresses holds a bounded queue.
    private let passwordChecks = Locked(0)
    static let maxPasswordChecks = 32
    /// Wrong passwords for one share within the window, from all addresses, before it is locked.
    static let perShareLimit = 4 * SignInThrottle.perAddress
    /// Openings of a share's page: 30 at once and one a second per visitor's address, 60 at once
    /// and two a second per share, so one visitor's connections cannot keep the server from the
    /// owner's requests.
    let visits: (perAddress: Pace, perShare: Pace)

    init(documents: DocumentService, offload: Offload, signed: SignedURLs, settings: ServerSettings, logger: Logger) {
        (self.documents, self.offload, self.signed, self.settings, self.logger) = (documents, offload, signed, settings, logger)
        perShare = SignInThrottle(window: settings.passwordWindow, limit: Self.perShareLimit, overall: nil, clock: documents.clock)
        perAddress = SignInThrottle(window: settings.passwordWindow, overall: nil, clock: documents.clock)
        visits = (Pace(perSecond: 1, burst: 30, clock: documents.clock), Pace(perSecond: 2, burst: 60, clock: documents.clock))
    }

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
        var openedCount: Int
        var lastOpenedAt: Date?
        var downloadCount: Int
        /// While it is live (and was made since links are kept): the link's path, and `link`, the
        /// whole address to give the person.
        var url: String?
        var link: String?

        init(_ share: ShareRecord, origin: String, now: Date) {
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
            openedCount = share.openedCount
            lastOpenedAt = share.lastOpenedAt
            downloadCount = share.downloadCount
            url = share.linkToken.flatMap { status == .live ? SharedPage.pathPrefix + $0 : nil }
            link = url.map { origin + $0 }
        }
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/v1/documents/:id/shares") { request, context in
            let id = try context.parameters.require("id")
            let asked = try await JSON.body(DocumentService.ShareRequest.self, of: request, limit: 16 * 1024,
                                            expected: #"{"label", "expires_at"?, "password"?, "allow_download"?, "version"?}"#)
            let documents = documents
            // The password's hash takes a quarter of a second on purpose: not on the cooperative pool.
            let (share, _) = try await documents.share(id, asked)
            Counter(label: "docpreview_shares_total", dimensions: [("event", "created")]).increment()
            context.logger.info("document shared", metadata: ["preview.document": "\(id)", "preview.share": "\(share.id)"])
            return try JSON.response(ShareView(share, origin: settings.origin(of: request), now: documents.clock.now), status: .created)
        }
        routes.add(.get, "/v1/documents/:id/shares") { request, context in
            let (id, origin) = (try context.parameters.require("id"), settings.origin(of: request))
            let documents = documents
            return try JSON.response(["shares": try await documents.shares(of: id).map { ShareView($0, origin: origin, now: documents.clock.now) }])
        }
        routes.add(.delete, "/v1/shares/:id") { _, context in
            let id = try context.parameters.require("id")
            let documents = documents
            try await documents.revokeShare(id)
            Counter(label: "docpreview_shares_total", dimensions: [("event", "revoked")]).increment()
            return try JSON.response(["share_id": id, "status": "revoked"])
        }
        routes.add(.get, "/v1/shares/:id/visits") { _, context in
            let id = try context.parameters.require("id")
            let documents = documents
            return try await JSON.response(["visits": try documents.visits(ofShare: id)])
        }
        routes.add(.get, SharedPage.pathPrefix + ":token") { request, context in
            try await open(try context.parameters.require("token"), password: nil, client: context.clientAddress, visit: request.method == .get)
        }
        routes.add(.post, SharedPage.pathPrefix + ":token") { request, context in
            let form = FormFields(try await request.body.collect(upTo: 16 * 1024))
            return try await open(try context.parameters.require("token"), password: form["password"] ?? "", client: context.clientAddress)
        }
    }

    /// The page of the share `token` names: its document, or the password form (again, with 401,
    /// after a wrong one; 429 while this share or this client tried too many), 404 or 410. A `HEAD`
    /// (`visit` false) is not counted as an opening.
    func open(_ token: String, password: String?, client: String, visit: Bool = true) async throws -> Response {
        let documents = documents
        let opened: (share: ShareRecord, document: Document)
        do {
            opened = try await documents.openShare(token: token)
        } catch let error as PreviewError where [.gone, .notFound].contains(error.code) {
            return SharedPage.refusal(error)
        }
        let share = opened.share
        if let wait = visits.perAddress.take(["address:" + client]) ?? visits.perShare.take(["share:" + share.id]) {
            Counter(label: "docpreview_shares_total", dimensions: [("event", "paced")]).increment()
            return SharedPage.throttled(after: wait, openings: true)
        }
        if let hash = share.passwordHash {
            guard let password else { return SharedPage.passwordForm(token: token, wrong: false) }
            if let wait = perAddress.attempt(from: client) ?? perShare.attempt(from: share.id) {
                Counter(label: "docpreview_shares_total", dimensions: [("event", "throttled")]).increment()
                return SharedPage.throttled(after: wait)
            }
            guard try await checkPassword(password, hash) else {
                logger.warning("wrong share password", metadata: ["preview.share": "\(share.id)", "preview.client": "\(client)"])
                return SharedPage.passwordForm(token: token, wrong: true)
            }
            perShare.giveBack(from: share.id)
            perAddress.recordSuccess(from: client)
        }
        let playback = try await documents.showShare(share, document: opened.document, counted: visit)
        Counter(label: "docpreview_shares_total", dimensions: [("event", "opened")]).increment()
        let described = await documents.pageDescriptions(of: opened.document, pages: 1...PageParts.maxPages)
        return SharedPage.response(opened.document, share: share, playback: playback, texts: described,
                                   rules: documents.rules, signed: signed)
    }

    /// Whether `password` is the one `hash` was made of, checked on the hashes lane; 503 with
    /// `Retry-After` when ``maxPasswordChecks`` already wait.
    private func checkPassword(_ password: String, _ hash: String) async throws -> Bool {
        guard passwordChecks.increment(below: Self.maxPasswordChecks) else {
            Counter(label: "docpreview_shares_total", dimensions: [("event", "busy")]).increment()
            throw APIError(PreviewError(.unavailable, "Too many passwords are being checked; try again in a moment."), headers: [.retryAfter: "1"])
        }
        defer { passwordChecks.withLock { $0 -= 1 } }
        return try await offload.run(.hashes) { SharePassword.matches(password, hash) }
    }
}

/// Media URLs of a share's page carry its id under their signature: checked here on every request,
/// they stop working when the share is revoked or expires, the original's bytes are served only by
/// a share that allows its download, and its downloads are counted.
struct ShareGate: Sendable {
    let documents: DocumentService

    /// Admits a request for a share's media: of the `original` (`/content`, refused unless the share
    /// allows downloads), counted as a `download` when it asks for one.
    func admit(share id: String, original: Bool, download: Bool) async throws {
        let documents = documents
        try await documents.admitShareMedia(share: id, original: original, download: download)
    }
}
