import Foundation
import Hummingbird
import PreviewCore
import PreviewServer
import PreviewStore

/// The list a page was opened from — its type, school and shared filters, search text and sort on
/// `/` — carried from page to page in the query, so that a document's previous and next are those
/// of the same list and the way back returns to it.
struct ListContext {
    var type: String?
    var school: String?
    var shared: Bool?
    var text: String?
    var sort: DocumentQuery.Sort

    init(type: String? = nil, school: String? = nil, shared: Bool? = nil, text: String? = nil, sort: DocumentQuery.Sort) {
        (self.type, self.school, self.shared, self.text, self.sort) = (type, school, shared, text, sort)
    }

    init(_ query: DocumentQuery) {
        self.init(type: query.type, school: query.school, shared: query.shared, text: query.containing, sort: query.sort)
    }

    /// The context in `request`'s query (none said: the owner's documents, newest first).
    init(_ request: Request) throws {
        self.init(try Self.listing(request))
    }

    /// The listing a page's `request` asks for: the API's query, except that a page's forms send
    /// `type=` (empty) for every type and `type=unspecified` for documents without one.
    static func listing(_ request: Request) throws -> DocumentQuery {
        var query = try request.documentQuery()
        query.type =
            switch query.type {
            case "": nil
            case StorageStatistics.unspecifiedType: ""
            case let type: type
            }
        return query
    }

    /// The list's query for `owner`'s documents.
    func query(owner: String) -> DocumentQuery {
        DocumentQuery(owner: owner, type: type, school: school, containing: text, shared: shared, sort: sort)
    }

    /// How many documents the list holds, read from the owner's `statistics` where they say it
    /// (all of them, or those of one type); nil for a search or another filter.
    func count(in statistics: StorageStatistics) -> Int? {
        guard school == nil, shared == nil, text == nil else { return nil }
        guard let type else { return statistics.documents }
        return statistics.byType[type.isEmpty ? StorageStatistics.unspecifiedType : type] ?? 0
    }

    /// The list's own query items (the default sort left out).
    var items: [(String, String?)] {
        [
            ("type", type.map { $0.isEmpty ? StorageStatistics.unspecifiedType : $0 }), ("school", school),
            ("shared", shared.map { $0 ? "true" : "false" }), ("q", text),
            ("sort", sort == .newest ? nil : sort.rawValue)
        ]
    }

    /// `path` with the list's query items.
    func carried(_ path: String) -> String {
        ListPage.address(path, items)
    }
}
