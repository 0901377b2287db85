import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `GET /`: one owner's documents — the statistics cards, the upload (files picked or dropped, each
/// with its progress and the service's own refusal), search, sort, type chips and a grid or list
/// (``ListScript`` makes the uploads and keeps the cards current; without it the forms still work).
/// One owner at a time, never the whole table: owners are labels under one token, and a page that
/// lists everybody's titles is one shoulder-surf from a leak. Documents uploaded without an owner
/// are the "(no owner)" group, shown by `/` itself, so an upload is always on the page it was made from.
struct ListPage {
    let pageTitle: String
    let stylesheet = StaticAsset.style.url
    let scripts = [StaticAsset.common.url, StaticAsset.list.url]
    let csrf: String?
    let signOutPath = SignInPage.signOutPath
    let owner: String
    let ownerLabel: String
    let stats: [Stat]
    let uploadTypes: [Option]
    let type: String?
    let query: String
    let sorts: [Option]
    let chips: [Chip]
    /// Type ids and their labels as JSON, for the cards the script adds.
    let typeLabels: String
    let cards: [Card]
    let emptyText: String
    let more: String?
    /// Why the list is not in the order asked (a search too broad to sort so: newest first instead).
    let notice: String?

    struct Stat {
        let label: String
        let value: String
        let detail: String?
    }

    struct Option {
        let value: String
        let label: String
        var selected = false
    }

    struct Chip {
        let label: String
        let count: Int
        let href: String
        let selected: Bool
    }

    struct Card {
        let id: String
        let href: String
        let title: String
        let typeLabel: String
        let version: Int
        let status: String
        let statusLabel: String
        let thumbnail: String?
        let error: String?
    }

    static func response(documents service: DocumentService, request: Request, session: Session?) async throws -> Response {
        var query = try DocumentsController.documentQuery(request)
        let owner = query.owner ?? ""
        query.owner = owner
        query.limit = 60
        let (listed, page, notice) = try await listing(query, list: service.list)
        let statistics = try await service.statistics(owner: owner)
        let model = ListPage(query: listed, page: page, statistics: statistics, rules: service.rules, session: session, notice: notice)
        return PageParts.page(PageTemplates.render(model, "list"))
    }

    /// `query`'s page, or, when its search is too broad to sort as asked (`search_too_broad`), the
    /// first page newest first, with the refusal as a notice: a person sees documents and why they
    /// are in that order, not an error.
    static func listing(_ query: DocumentQuery, list: (DocumentQuery) async throws -> DocumentPage)
        async throws -> (query: DocumentQuery, page: DocumentPage, notice: String?) {
        do {
            return (query, try await list(query), nil)
        } catch let refusal as PreviewError where refusal.code == .searchTooBroad && query.sort != .newest {
            var newest = query
            (newest.sort, newest.after) = (.newest, nil)
            return (newest, try await list(newest), refusal.message + " Shown newest first.")
        }
    }

    init(query: DocumentQuery, page: DocumentPage, statistics: StorageStatistics, rules: DocumentRules, session: Session?, notice: String? = nil) {
        self.notice = notice
        let owner = query.owner ?? ""
        func label(_ type: String?) -> String {
            guard let type, !type.isEmpty, type != StorageStatistics.unspecifiedType else { return "No type" }
            return rules.type(id: type)?.label ?? type
        }
        let context = ListContext(query)
        func link(type: String?) -> String {
            Self.path(owner: owner, items: ListContext(type: type, text: context.text, sort: context.sort).items)
        }
        ownerLabel = owner.isEmpty ? "(no owner)" : owner
        pageTitle = ownerLabel
        self.owner = owner
        csrf = session?.csrfToken
        let shared = statistics.sharedDocuments
        let byType = statistics.byType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        stats = [
            Stat(label: "Documents", value: "\(statistics.documents)", detail: "\(statistics.versions) versions"),
            Stat(label: "By type", value: byType.count == 1 ? "1 type" : "\(byType.count) types",
                 detail: byType.isEmpty ? nil : byType.prefix(3).map { "\(label($0.key)) \($0.value)" }.joined(separator: " · ")),
            Stat(label: "Most common type", value: statistics.mostCommonType.map(label) ?? "—", detail: nil),
            Stat(label: "Storage", value: Self.bytes(statistics.storedBytes),
                 detail: statistics.dedupRatio > 1 ? String(format: "%.1f× saved by dedup", statistics.dedupRatio) : "\(Self.bytes(statistics.logicalBytes)) uploaded"),
            Stat(label: "Shared", value: "\(shared)", detail: shared == 1 ? "document with a live link" : "documents with a live link"),
        ]
        uploadTypes = rules.types.map { Option(value: $0.id, label: $0.label) }
        type = query.type
        self.query = query.containing ?? ""
        let sortLabels: [(DocumentQuery.Sort, String)] = [(.newest, "Newest"), (.oldest, "Oldest"), (.title, "Title"), (.type, "Type"), (.mostShared, "Most shared")]
        sorts = sortLabels.map { Option(value: $0.0.rawValue, label: $0.1, selected: $0.0 == query.sort) }
        chips = [Chip(label: "All", count: statistics.documents, href: link(type: nil), selected: query.type == nil)]
            + byType.map { id, count in
                let filter = id == StorageStatistics.unspecifiedType ? "" : id
                return Chip(label: label(id), count: count, href: link(type: filter), selected: query.type == filter)
            }
        typeLabels = String(decoding: (try? JSONSerialization.data(withJSONObject: Dictionary(uniqueKeysWithValues: rules.types.map { ($0.id, $0.label) }),
                                                                    options: .sortedKeys)) ?? Data("{}".utf8), as: UTF8.self)
        cards = page.documents.map { document in
            let status = document.status
            let pictured = status == .done && document.previewStatus == .ready
            return Card(id: document.id, href: context.carried("/ui/documents/\(document.id)"), title: document.title, typeLabel: label(document.type),
                        version: document.version, status: status.rawValue,
                        statusLabel: document.previewStatus == .noPreview && status == .done ? "No preview" : Self.statusLabel(status),
                        thumbnail: pictured ? "/v1/documents/\(document.id)/preview" : nil, error: status == .failed ? document.errorMessage : nil)
        }
        emptyText = query.containing.map { "Nothing matches “\($0)”." } ?? "No documents yet: upload one above."
        more = page.next.map { next in
            Self.path(owner: owner, items: context.items + [("cursor", next.token)])
        }
    }

    /// What a card says of a document's status.
    static func statusLabel(_ status: DocumentStatus) -> String {
        switch status {
        case .queued: "Queued"
        case .processing: "Processing"
        case .done: "Ready"
        case .failed: "Failed"
        }
    }

    /// The page listing `owner`'s documents.
    static func path(owner: String, items: [(String, String?)] = []) -> String {
        address("/", [("owner", owner.isEmpty ? nil : owner)] + items)
    }

    /// `path` with the query `items` that have a value, percent-encoded.
    static func address(_ path: String, _ items: [(String, String?)]) -> String {
        let present = items.compactMap { name, value in value.map { (name, $0) } }
        return present.isEmpty ? path : path + "?" + QueryItems.encoded(present)
    }

    static func bytes(_ count: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(count), countStyle: .file)
    }
}
