import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import PreviewDomain

/// Announces a resumable upload (IETF draft) the moment its request arrives, before the router
/// reads its body: `104 (Upload Resumption Supported)` with the upload's URL, so a client whose
/// connection drops later can resume. The upload's id is reserved here and handed to the upload
/// route in ``header`` (a client's own value of it is removed from every request). Only a request
/// that will be let in (a host we answer to, the service token or a signed-in session) is
/// announced; a form (`multipart/form-data`) is read whole, not resumed, and is not.
struct UploadAnnouncement: Sendable {
    static let header = HTTPField.Name("DocPreview-Announced-Upload")!
    /// The paths whose `POST` may create a resumable upload.
    static let creationPaths: Set<String> = ["/v1/documents", "/v1/uploads"]

    let spoken: Set<Int>
    let scheme: String
    let admits: @Sendable (Request) -> Bool
    let limits: @Sendable (ResumableDraft) -> HTTPFields

    /// `responder`, with the announcement sent first where one is due.
    func wrap(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        { [self] request, writer, channel in
            let draft = creation(request)
            guard draft != nil || request.headers[Self.header] != nil else { return try await responder(request, writer, channel) }
            var head = request.head
            head.headerFields[Self.header] = nil
            if let draft, let authority = head.authority ?? head.headerFields[HTTPField.Name("Host")!], admits(request) {
                let id = UploadSession.newID()
                head.headerFields[Self.header] = id
                var announcement = HTTPResponse(status: .init(code: 104, reasonPhrase: "Upload Resumption Supported"))
                announcement.headerFields[ResumableDraft.interopVersion] = "\(draft.version)"
                announcement.headerFields[.location] = "\(scheme)://\(authority)\(UploadsController.path)/\(id)"
                announcement.headerFields.set(limits(draft))
                try await writer.writeInformationalHead(announcement)
            }
            try await responder(Request(head: head, body: request.body), writer, channel)
        }
    }

    /// The draft version of `request` when it creates a resumable upload.
    private func creation(_ request: Request) -> ResumableDraft? {
        guard request.method == .post, Self.creationPaths.contains(request.uri.path),
            let draft = ResumableDraft(request.head, spoken: spoken), draft.completes(request.head) != nil,
            request.headers[.contentType]?.lowercased().hasPrefix("multipart/") != true
        else { return nil }
        return draft
    }
}
