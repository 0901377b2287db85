import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewServer

/// The pages a person uses in a browser: the owner's documents with the upload form, a document's
/// viewer with its versions, and the forms that delete, restore and upload, over the document
/// service (an upload received as every upload is, by the server's ``UploadIntake``, so a form and
/// a client are held to the same rules). A failure is a page too (``PageFailure``), with the API's status.
struct PagesController {
    let documents: DocumentService
    let intake: UploadIntake

    func register(on routes: RouteTable) {
        routes.add(.get, "/") { request, context in
            let (documents, session) = (documents, context.session)
            return try await PageFailure.answering { try await ListPage.response(documents: documents, request: request, session: session) }
        }
        routes.add(.get, "/ui/documents/:id") { request, context in
            let (documents, id, session) = (documents, try context.parameters.require("id"), context.session)
            return try await PageFailure.answering {
                try await DetailPage.response(documents: documents, id: id, list: try ListContext(request), session: session)
            }
        }
        routes.add(.get, "/ui/documents/:id/view") { request, context in
            let (documents, id, session) = (documents, try context.parameters.require("id"), context.session)
            return try await PageFailure.answering {
                try await ViewerPage.response(documents: documents, id: id, list: try ListContext(request), session: session)
            }
        }
        routes.add(.get, "/ui/documents/:id/delete") { _, context in
            let (documents, id, session) = (documents, try context.parameters.require("id"), context.session)
            return try await PageFailure.answering { try await PageParts.deleteConfirmation(documents: documents, id: id, session: session) }
        }
        routes.add(.post, "/ui/documents/:id/delete") { request, context in
            let (documents, id) = (documents, try context.parameters.require("id"))
            return try await PageFailure.answering(.delete) {
                let deletion = try await documents.delete(id: id, version: try request.versionNumber(required: false))
                return Response(status: .seeOther, headers: [.location: ListPage.path(owner: deletion.versions.first?.owner ?? "")])
            }
        }
        routes.add(.get, "/ui/documents/:id/restore") { request, context in
            let (documents, id, session) = (documents, try context.parameters.require("id"), context.session)
            return try await PageFailure.answering {
                try await PageParts.restoreConfirmation(documents: documents, id: id, version: request.queryFields.get("version"), session: session)
            }
        }
        routes.add(.post, "/ui/documents/:id/restore") { request, context in
            let (documents, id) = (documents, try context.parameters.require("id"))
            return try await PageFailure.answering(.restore) {
                let restored = try await documents.restore(version: try request.versionNumber(required: true)!, of: id)
                return Response(status: .seeOther, headers: [.location: "/ui/documents/\(restored.document.id)"])
            }
        }
        routes.add(.post, PagePaths.upload) { request, context in
            try await PageFailure.answering(.upload) {
                let accepted = try await intake.receive(request, context: context)
                return Response(status: .seeOther, headers: [.location: ListPage.path(owner: accepted.owner)])
            }
        }
    }
}
