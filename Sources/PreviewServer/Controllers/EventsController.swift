import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// `GET /v1/events?since=N&owner=O&limit=L&wait=S`: what an owner's app waits for (``OwnerEvent``:
/// a school's first opening of its link), oldest first after the cursor `since`; with `wait`, a
/// read that finds none is answered when one is kept (long polling), or empty when the wait ends.
struct EventsController {
    let documents: DocumentService

    /// The events of one answer, and the cursor to pass back.
    struct EventList: Encodable {
        var events: [OwnerEvent]
        var next: Int64
    }

    func register(on routes: RouteTable) {
        routes.add(.get, "/v1/events") { request, _ in
            let fields = request.queryFields
            guard let since = Int64(fields.get("since") ?? "0"), since >= 0 else {
                throw APIError.badRequest("since must be the `next` of an earlier answer, or 0")
            }
            guard let limit = Int(fields.get("limit") ?? "100"), (1...1000).contains(limit) else {
                throw APIError.badRequest("limit must be in 1...1000")
            }
            let wait = try DocumentsController.waitSeconds(request)
            let events = try await documents.events(since: since, owner: fields.get("owner"), limit: limit, wait: wait.map { .seconds($0) })
            return try JSON.response(EventList(events: events, next: events.last?.sequence ?? since))
        }
    }
}
