import Foundation
import HTTPTypes
import Hummingbird
import PreviewCore
import PreviewDocuments

/// tus 1.0's front door at `/v1/uploads/tus`, with the extensions creation, creation-with-upload,
/// creation-defer-length, termination, expiration and checksum (sha1, sha256). The labels come
/// as `Upload-Metadata` (`filename` or `name`, `type`, `title`, `description`, `school`, `owner`)
/// or in the query; the upload completes when its declared length has arrived, and its last
/// answer names the document (``documentField``) and carries the one-shot upload's JSON.
extension UploadsController {
    static let tusPath = "/v1/uploads/tus"
    private static let tusResumable = HTTPField.Name("Tus-Resumable")!
    private static let tusVersion = "1.0.0"
    private static let offsetStream = "application/offset+octet-stream"

    func registerTus(on routes: RouteTable) {
        routes.add(.options, Self.tusPath) { _, _ in
            var headers = Self.tusHeaders()
            headers[HTTPField.Name("Tus-Version")!] = Self.tusVersion
            headers[HTTPField.Name("Tus-Extension")!] = "creation,creation-with-upload,creation-defer-length,termination,expiration,checksum"
            headers[HTTPField.Name("Tus-Max-Size")!] = "\(documents.limits.maxFileBytes)"
            headers[HTTPField.Name("Tus-Checksum-Algorithm")!] = UploadChecksum.algorithms
            return Response(status: .noContent, headers: headers)
        }
        routes.add(.post, Self.tusPath) { request, context in
            try await tus(request) {
                try await intake.admitQueued()
                let length = try Self.byteCount(request, ResumableDraft.length)
                let deferred = request.headers[HTTPField.Name("Upload-Defer-Length")!]
                guard (length == nil) != (deferred == nil), deferred == nil || deferred == "1" else {
                    throw APIError.badRequest("Send Upload-Length, or Upload-Defer-Length: 1.")
                }
                let metadata = try Self.metadata(request.headers[HTTPField.Name("Upload-Metadata")!])
                let fields = fields(request, extra: metadata)
                let session = try await documents.createUpload(
                    owner: fields["owner"] ?? "", client: context.clientAddress, front: .tus,
                    fields: fields, length: length)
                ServiceMetrics.resumableUploads(front: "tus")
                var headers = Self.tusHeaders()
                headers[.location] = uploadURL(session.id, request: request, under: Self.tusPath)
                headers[HTTPField.Name("Upload-Expires")!] = Self.httpDate(session.expiresAt)
                // creation-with-upload: the body, if any, is the first append.
                guard request.headers[.contentType] == Self.offsetStream else { return Response(status: .created, headers: headers) }
                let appended = try await tusAppend(request, context: context, to: session.id, at: 0)
                return try tusAnswer(appended, status: .created, headers: headers)
            }
        }
        routes.add(.head, "\(Self.tusPath)/:id") { request, context in
            try await tus(request) {
                // A request still appending (its client gave up on it) ends first, so the offset is
                // final; an upload whose bytes all arrived but that is no document yet (its server
                // stopped while putting it together) is finished now, as tus clients take it as done.
                let id = try context.parameters.require("id")
                _ = try await documents.settledUpload(id, front: .tus)
                let session = try await documents.finishIfReceived(id, front: .tus)
                var headers = Self.tusHeaders()
                headers[ResumableDraft.offset] = "\(session.received)"
                if let length = session.length {
                    headers[ResumableDraft.length] = "\(length)"
                } else {
                    headers[HTTPField.Name("Upload-Defer-Length")!] = "1"
                }
                headers[HTTPField.Name("Upload-Expires")!] = Self.httpDate(session.expiresAt)
                headers[.cacheControl] = "no-store"
                if let document = session.documentID { headers[Self.documentField] = document }
                return Response(status: .ok, headers: headers)
            }
        }
        routes.add(.patch, "\(Self.tusPath)/:id") { request, context in
            try await tus(request) {
                let id = try context.parameters.require("id")
                guard request.headers[.contentType] == Self.offsetStream else {
                    throw APIError(.unsupportedType, "A tus append is sent as \(Self.offsetStream).")
                }
                guard let offset = try Self.byteCount(request, ResumableDraft.offset) else {
                    throw APIError.badRequest("Upload-Offset is required")
                }
                let appended = try await tusAppend(request, context: context, to: id, at: offset)
                var headers = Self.tusHeaders()
                headers[HTTPField.Name("Upload-Expires")!] = Self.httpDate(appended.session.expiresAt)
                return try tusAnswer(appended, status: .noContent, headers: headers)
            }
        }
        routes.add(.delete, "\(Self.tusPath)/:id") { request, context in
            try await tus(request) {
                try await cancel(context.parameters.require("id"), front: .tus, context: context)
                return Response(status: .noContent, headers: Self.tusHeaders())
            }
        }
    }

    /// Appends a tus request's body (with its checksum, and its deferred length if it declares one).
    private func tusAppend(_ request: Request, context: ServerContext, to id: String, at offset: Int) async throws -> Appended {
        var checksum: UploadChecksum?
        if let header = request.headers[HTTPField.Name("Upload-Checksum")!] {
            guard let parsed = UploadChecksum(header: header) else {
                throw APIError.badRequest("Upload-Checksum must be sha1 or sha256 and a base64 digest of that size.")
            }
            checksum = parsed
        }
        let length = try Self.byteCount(request, ResumableDraft.length)
        return try await append(
            request, context: context, to: id, through: .tus, at: offset, length: length, ends: false, checksum: checksum,
            metric: "tus")
    }

    /// A tus append's answer: its offset, and the document with the one-shot upload's JSON once complete.
    private func tusAnswer(_ appended: Appended, status: HTTPResponse.Status, headers: HTTPFields) throws -> Response {
        var headers = headers
        headers[ResumableDraft.offset] = "\(appended.session.received)"
        guard let completion = appended.completion else { return Response(status: status, headers: headers) }
        headers[Self.documentField] = completion.document.id
        // A body with 204 is not allowed: a completing PATCH is answered 200 with the JSON.
        return try JSON.response(accepted(completion), status: status == .noContent ? .ok : status, headers: headers)
    }

    /// `body`'s answer, after the tus version check, or its failure in tus's words; every answer
    /// carries `Tus-Resumable`.
    private func tus(_ request: Request, _ body: () async throws -> Response) async throws -> Response {
        do {
            guard request.headers[Self.tusResumable] == Self.tusVersion else {
                var error = APIError(.badRequest, "This server speaks tus \(Self.tusVersion) (Tus-Resumable).")
                error.status = .preconditionFailed
                error.headers[HTTPField.Name("Tus-Version")!] = Self.tusVersion
                throw error
            }
            return try await body()
        } catch {
            guard var failure = Self.apiError(error) else { throw error }
            switch error as? UploadRefusal {
            case .checksumMismatch?: failure.status = HTTPResponse.Status(code: 460, reasonPhrase: "Checksum Mismatch")
            case .inconsistentLength?: failure.status = .contentTooLarge
            case .completed?: failure.status = .conflict
            default: break
            }
            failure.headers[Self.tusResumable] = Self.tusVersion
            throw failure
        }
    }

    private static func tusHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[tusResumable] = tusVersion
        return headers
    }

    /// `Upload-Metadata`: comma-separated pairs of a key and its value in base64 (or a key alone).
    /// The labels' keys are kept (`name` is taken for `filename`, as tus-js-client sends it).
    static func metadata(_ header: String?) throws -> [String: String] {
        guard let header else { return [:] }
        var fields: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let pieces = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
            guard (1...2).contains(pieces.count) else { throw APIError.badRequest("Upload-Metadata must be pairs of a key and a base64 value.") }
            guard pieces.count == 2 else { continue }
            guard let data = Data(base64Encoded: String(pieces[1])), let value = String(data: data, encoding: .utf8) else {
                throw APIError.badRequest("Upload-Metadata's \(pieces[0].prefix(32)) is not base64 UTF-8.")
            }
            let key = pieces[0] == "name" ? "filename" : String(pieces[0])
            if UploadReceiver.labelFields.contains(key), fields[key] == nil || pieces[0] != "name" {
                fields[key] = value
            }
        }
        return fields
    }

    /// An HTTP date (`Upload-Expires`).
    static func httpDate(_ unixSeconds: Int) -> String {
        let format: Date.FormatString = """
            \(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT
            """
        return Date(timeIntervalSince1970: TimeInterval(unixSeconds)).formatted(
            Date.VerbatimFormatStyle(
                format: format, locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
