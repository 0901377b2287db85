import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PreviewCore
import PreviewDocuments
import PreviewStore

/// The Video Downloader's contract (DESIGN §8b), with the service token or a device's
/// (`docpreview tokens add --device NAME`):
/// - `POST /api/v1/download` `{"url", "client_id", "timestamp"}` → 202 `{"status": "queued",
///   "download_id", "message", "timestamp", "error": null}` once the link and its download are
///   committed (200 for a link the client sent before: the same `download_id`); a refusal is
///   `{"status": "error", "download_id": null, "message", "timestamp", "error": CODE}` with the
///   code's HTTP status.
/// - `GET /api/v1/download/{id}`: where the download is (`queued`, `downloading`, `done` with its
///   document and a signed thumbnail URL, `failed` with the reason).
/// - `GET /api/v1/downloads?client_id=&limit=&cursor=`: a client's history, newest first, keyset pages.
struct DownloadsController {
    let documents: DocumentService
    let signed: SignedURLs

    /// A body larger than this is not a link.
    static let maxBodyBytes = 16 * 1024
    static let defaultLimit = 50
    static let maxLimit = 200

    struct Submission: Decodable {
        var url: String
        var clientID: String
        var timestamp: String?
        /// Whose documents links sent with the service token become (ignored for a device).
        var owner: String?

        enum CodingKeys: String, CodingKey {
            case url, timestamp, owner
            case clientID = "client_id"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            url = try container.decode(String.self, forKey: .url)
            clientID = try container.decode(String.self, forKey: .clientID)
            owner = try container.decodeIfPresent(String.self, forKey: .owner)
            // The client's time, as a string or a number: kept as it was written.
            if let text = try? container.decodeIfPresent(String.self, forKey: .timestamp) {
                timestamp = text
            } else if let number = try? container.decodeIfPresent(Double.self, forKey: .timestamp) {
                timestamp = String(number)
            }
        }
    }

    /// The answer to a submission, and the envelope of every error on these routes.
    struct Envelope: Encodable {
        var status: String
        var downloadID: String?
        var message: String
        var timestamp: String
        var error: String?

        enum CodingKeys: CodingKey {
            case status, downloadID, message, timestamp, error
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(status, forKey: .status)
            try container.encode(downloadID, forKey: .downloadID)
            try container.encode(message, forKey: .message)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encode(error, forKey: .error)
        }
    }

    /// A download as the status and history routes show it.
    struct View: Encodable {
        var downloadID: String
        var status: DownloadRecord.Status
        var url: String
        var clientID: String
        var attempts: Int
        var createdAt: String
        var updatedAt: String
        var documentID: String?
        var documentURL: String?
        var thumbnailURL: String?
        var error: String?
        var message: String?
        /// When the next attempt starts, for a download waiting to retry.
        var retryAt: String?
    }

    struct History: Encodable {
        var downloads: [View]
        var nextCursor: String?

        enum CodingKeys: CodingKey {
            case downloads, nextCursor
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(downloads, forKey: .downloads)
            try container.encode(nextCursor, forKey: .nextCursor)
        }
    }

    func register(on routes: RouteTable) {
        routes.add(.post, "/api/v1/download") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: Self.maxBodyBytes)
            guard let submission = try? JSONDecoder().decode(Submission.self, from: Data(buffer: body)) else {
                throw APIError.badRequest("The body must be JSON with url and client_id (strings) and timestamp.")
            }
            let sender = DocumentService.LinkSender(device: context.device, owner: context.device == nil ? submission.owner : nil)
            let documents = documents
            let (download, created) = try await documents.submitDownload(
                url: submission.url, clientID: submission.clientID, clientTimestamp: submission.timestamp, from: sender)
            ServiceMetrics.downloadRequests(outcome: created ? "queued" : "repeated")
            let message = created ? "Queued for download." : Self.repeatedMessage(download)
            return try JSON.response(
                Envelope(
                    status: created ? "queued" : download.status.rawValue, downloadID: download.id, message: message,
                    timestamp: Self.now(), error: nil),
                status: created ? .accepted : .ok)
        }
        routes.add(.get, "/api/v1/download/:id") { _, context in
            let id = try context.parameters.require("id")
            let sender = DocumentService.LinkSender(device: context.device)
            let documents = documents
            let download = try await documents.download(id: id, for: sender)
            return try JSON.response(view(download))
        }
        routes.add(.get, "/api/v1/downloads") { request, context in
            let query = request.queryFields
            guard let clientID = query.get("client_id") else { throw APIError.badRequest("client_id is required.") }
            var limit = Self.defaultLimit
            if let text = query.get("limit") {
                guard let value = Int(text), (1...Self.maxLimit).contains(value) else { throw APIError.badRequest("limit is 1 to \(Self.maxLimit).") }
                limit = value
            }
            let cursor = query.get("cursor")
            let sender = DocumentService.LinkSender(device: context.device)
            let documents = documents
            let page = try await documents.downloads(clientID: clientID, after: cursor, limit: limit, for: sender)
            return try JSON.response(History(downloads: page.downloads.map(view), nextCursor: page.next))
        }
    }

    private static func repeatedMessage(_ download: DownloadRecord) -> String {
        switch download.status {
        case .done: "Already downloaded."
        case .downloading: "Already received; downloading."
        case .queued, .failed: "Already received; queued for download."
        }
    }

    private func view(_ download: DownloadRecord) -> View {
        let expires = signed.clock.unixSeconds + 3600
        // A failed attempt's retry is due at `availableAt`: said until a fetcher takes it, also in the
        // moment after it fell due (a loaded machine's fetchers may take a while to get to it).
        let retrying = download.status == .queued && download.errorCode != nil
        return View(
            downloadID: download.id, status: download.status, url: download.url, clientID: download.clientID,
            attempts: download.attempts, createdAt: Self.format(download.createdAt), updatedAt: Self.format(download.updatedAt),
            documentID: download.documentID, documentURL: download.documentID.map { "/v1/documents/\($0)" },
            thumbnailURL: download.documentID.map { signed.sign("/v1/documents/\($0)/preview", expires: expires) },
            error: download.errorCode?.rawValue, message: download.errorMessage,
            retryAt: retrying ? Self.format(download.availableAt) : nil)
    }

    static func now() -> String { format(Date()) }

    /// `2026-11-24T21:38:05.123Z`.
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// On the download routes, every error (the access checks' included) is answered in the client's
/// envelope, with the status the error's code has.
struct DownloadEnvelopeMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/v1/") else { return try await next(request, context) }
        let failure: APIError
        do {
            return try await next(request, context)
        } catch let error as APIError {
            failure = error
        } catch let error as NIOTooManyBytesError {
            failure = APIError(error)
        } catch let error as HTTPError {
            let code: PreviewError.Code =
                switch error.status.code {
                case 404: .notFound
                case 413: .fileTooLarge
                default: .badRequest
                }
            failure = APIError(code, error.body ?? "The request was refused (\(error.status.code)).")
        }
        let envelope = DownloadsController.Envelope(
            status: "error", downloadID: nil, message: failure.error.message,
            timestamp: DownloadsController.now(), error: failure.error.code.rawValue)
        return try JSON.response(envelope, status: failure.status, headers: failure.headers)
    }
}
