import Foundation
import Hummingbird
import Logging
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer

/// `GET|POST /s/{token}`: a share's page (``SharedPage``), opened by anyone who has the link, with
/// its password form when it has one. The openings and the wrong passwords are paced per visitor's
/// address and per share, so neither a guesser nor one visitor's connections can keep the others out.
struct SharePagesController {
    let documents: DocumentService
    let offload: Offload
    let signed: SignedURLs
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
    /// Reading reports (``ShareReadingReport``): a page sends one every 15 s while it is seen, and
    /// one as it is hidden. Per visitor's address 20 at once and one a second (a school's coaches
    /// behind one address), per share 100 at once and five a second: a flood is refused before
    /// it reaches the index, and spends no more of it than a few busy visitors would.
    let reports: (perAddress: Pace, perShare: Pace)

    init(documents: DocumentService, offload: Offload, signed: SignedURLs, passwordWindow: Duration, logger: Logger) {
        (self.documents, self.offload, self.signed, self.logger) = (documents, offload, signed, logger)
        perShare = SignInThrottle(window: passwordWindow, limit: Self.perShareLimit, overall: nil, clock: documents.clock)
        perAddress = SignInThrottle(window: passwordWindow, overall: nil, clock: documents.clock)
        visits = (Pace(perSecond: 1, burst: 30, clock: documents.clock), Pace(perSecond: 2, burst: 60, clock: documents.clock))
        reports = (Pace(perSecond: 1, burst: 20, clock: documents.clock), Pace(perSecond: 5, burst: 100, clock: documents.clock))
    }

    func register(on routes: RouteTable) {
        routes.add(.get, PagePaths.sharePrefix + ":token") { request, context in
            try await open(try context.parameters.require("token"), password: nil, client: context.clientAddress, visit: request.method == .get)
        }
        routes.add(.post, PagePaths.sharePrefix + ":token") { request, context in
            let form = PostedForm.decode(PasswordForm.self, from: try await request.body.collect(upTo: 16 * 1024))
            return try await open(try context.parameters.require("token"), password: form?.password ?? "", client: context.clientAddress)
        }
        routes.add(.post, PagePaths.sharePrefix + ":token/reading") { request, context in
            let token = try context.parameters.require("token")
            return try await read(request, client: context.clientAddress) { try await documents.openShare(token: token).share }
        }
        routes.add(.post, PagePaths.shareReadingPath(share: ":share")) { request, context in
            let id = try context.parameters.require("share")
            return try await read(request, client: context.clientAddress) { try await documents.liveShare(id) }
        }
    }

    /// Keeps a reading report of the share `opened` finds (by its page's token, or by its id for an
    /// app that plays its signed URLs): `204`; `413` past ``ShareReading/maxReportBytes``; `429`
    /// with `Retry-After` past this address's or this share's pace; `404`/`410` for no such share or
    /// one that ended (nothing is kept); `403` without the pass of this share; `400` for a report
    /// that is not one.
    func read(_ request: Request, client: String, opened: () async throws -> ShareRecord) async throws -> Response {
        let body = try await request.body.collect(upTo: ShareReading.maxReportBytes)
        if let wait = reports.perAddress.take(["address:" + client]) { return paced(wait) }
        let share = try await opened()
        if let wait = reports.perShare.take(["share:" + share.id]) { return paced(wait) }
        guard let report = try? JSONDecoder().decode(ShareReadingReport.self, from: body) else {
            throw PreviewError(.badRequest, #"A reading report is {"pass", "visitor", "view", "pages"?, "played"?, "duration"?}."#)
        }
        try signed.verify(readingPass: report.pass, share: share.id)
        try await documents.recordReading(report, of: share)
        ServiceMetrics.shares(event: "reading")
        return Response(status: .noContent)
    }

    private func paced(_ wait: Duration) -> Response {
        ServiceMetrics.shares(event: "reading_paced")
        return Response(status: .tooManyRequests, headers: [.retryAfter: "\(max(1, wait.components.seconds + 1))"])
    }

    /// The password form's field.
    struct PasswordForm: Decodable {
        var password: String?
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
            ServiceMetrics.shares(event: "paced")
            return SharedPage.throttled(after: wait, openings: true)
        }
        if let hash = share.passwordHash {
            guard let password else { return SharedPage.passwordForm(token: token, wrong: false) }
            if let wait = perAddress.attempt(from: client) ?? perShare.attempt(from: share.id) {
                ServiceMetrics.shares(event: "throttled")
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
        ServiceMetrics.shares(event: "opened")
        let described = await documents.sharedPageDescriptions(of: opened.document, share: share, pages: 1...PageParts.maxPages)
        return SharedPage.response(
            opened.document, share: share, playback: playback, texts: described,
            rules: documents.rules, signed: signed)
    }

    /// Whether `password` is the one `hash` was made of, checked on the hashes lane; 503 with
    /// `Retry-After` when ``maxPasswordChecks`` already wait.
    private func checkPassword(_ password: String, _ hash: String) async throws -> Bool {
        guard passwordChecks.increment(below: Self.maxPasswordChecks) else {
            ServiceMetrics.shares(event: "busy")
            throw APIError(PreviewError(.unavailable, "Too many passwords are being checked; try again in a moment."), headers: [.retryAfter: "1"])
        }
        defer { passwordChecks.withLock { $0 -= 1 } }
        return try await offload.run(.hashes) { SharePassword.matches(password, hash) }
    }
}
