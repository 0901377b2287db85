import Foundation
import Hummingbird
import PreviewStore

/// The list a page was opened from — its type filter, search text and sort on `/` — carried from
/// page to page in the query, so that a document's previous and next are those of the same list and
/// the way back returns to it.
struct ListContext {
    let type: String?
    let text: String?
    let sort: DocumentQuery.Sort

    init(type: String?, text: String?, sort: DocumentQuery.Sort) {
        (self.type, self.text, self.sort) = (type, text, sort)
    }

    init(_ query: DocumentQuery) {
        self.init(type: query.type, text: query.containing, sort: query.sort)
    }

    /// The context in `request`'s query (none said: the owner's documents, newest first).
    init(_ request: Request) throws {
        self.init(try DocumentsController.documentQuery(request))
    }

    /// The list's query for `owner`'s documents.
    func query(owner: String) -> DocumentQuery {
        DocumentQuery(owner: owner, type: type, containing: text, sort: sort)
    }

    /// The list's own query items (the default sort left out).
    var items: [(String, String?)] {
        [("type", type), ("q", text), ("sort", sort == .newest ? nil : sort.rawValue)]
    }

    /// `path` with the list's query items.
    func carried(_ path: String) -> String {
        ListPage.address(path, items)
    }
}
