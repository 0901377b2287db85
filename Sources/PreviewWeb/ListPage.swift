import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer
import PreviewStore

/// `GET /`: one owner's documents, in the Documents List specification's order — the title and
/// "{shown} of {total} total", the statistics cards in a row that scrolls sideways, the search,
/// sort, Filter button (a sheet of type, school and shared filters) and grid or list toggle, the
/// active filters as removable chips, then the documents; the upload is a floating button that opens
/// its form (type, title, school, description, files) as a sheet. `web/list.js` makes the uploads,
/// queued as the service paces them, and keeps the cards and counts current; without it the forms
/// still work. One owner at a time, never the whole table: owners are labels under one token, and a
/// page that lists everybody's titles is one shoulder-surf from a leak. Documents uploaded without an
/// owner are the "(no owner)" group, shown by `/` itself, so an upload is always on the page it was made from.
struct ListPage {
    let pageTitle = "Documents"
    let stylesheet = StaticAsset.style.url
    let scripts = [StaticAsset.common.url, StaticAsset.upload.url, StaticAsset.list.url]
    let csrf: String?
    let signOutPath = PagePaths.signOut
    let owner: String
    /// The owner named under the title, when there is one.
    let ownerLabel: String?
    /// "{shown} of {total} total".
    let subtitle: String
    let stats: [Stat]
    let uploadTypes: [Option]
    let query: String
    let sorts: [Option]
    let typeFilters: [Option]
    let schoolFilters: [Option]
    let sharedOnly: Bool
    /// How many filters are on (search, type, school, shared), for the Filter button's badge.
    let activeCount: Int
    let hasActive: Bool
    let activeFilters: [ActiveFilter]
    let clearFilters: String?
    /// The owner's schools, for the upload form.
    let schools: [String]
    /// Type ids and their labels as JSON, for the cards the script adds.
    let typeLabels: String
    let cards: [Card]
    /// Whether no document matches the filters (while the owner has documents).
    let filteredOut: Bool
    let more: String?
    /// Why the list is not in the order asked (a search too broad to sort so: newest first instead).
    let notice: String?
    let maxTitle = PageParts.maxTitle
    let maxDescription = PageParts.maxDescription

    struct Stat {
        let key: String
        let label: String
        let value: String
        let detail: String?
        /// The card's colour: blue, green, purple or orange.
        let tone: String
        let icon: String
    }

    struct Option {
        let value: String
        let label: String
        var selected = false
        var count: Int? = nil
        /// A type's file extensions (".pdf,.txt"), for the upload's check.
        var extensions: String? = nil
    }

    /// A filter that is on, and the list without it.
    struct ActiveFilter {
        let label: String
        let href: String
    }

    struct Card {
        let id: String
        let href: String
        let title: String
        let typeLabel: String
        let typeEmoji: String
        let school: String
        let date: String
        let version: Int
        let status: String
        let statusLabel: String
        let thumbnail: String?
        /// The thumbnail at each width offered (`srcset`), the screen choosing.
        let thumbnailSet: String?
        /// A video's teaser (`web/list.js` plays it on hover or a long press), or nil.
        let teaser: String?
        /// "Shared: 3" ("Shared: 20+" past 20), or nil.
        let shared: String?
        /// What a screen reader says of the card.
        let spoken: String
        let error: String?
    }

    /// The types' emoji on badges (the specification's; others a folder).
    static let emojiByType = ["highlight_video": "🎥", "transcript": "📄", "resume": "📋", "rec_letter": "💌", "questionnaire": "📝", "stats_sheet": "📊"]

    static func emoji(_ type: String?) -> String { emojiByType[type ?? ""] ?? "📁" }

    static func response(documents service: DocumentService, request: Request, session: Session?) async throws -> Response {
        var query = try ListContext.listing(request)
        let owner = query.owner ?? ""
        query.owner = owner
        query.limit = 60
        let (listed, page, notice) = try await listing(query, list: service.list)
        let statistics = try await service.statistics(owner: owner)
        let schools = try await service.schools(owner: owner).map(\.name)
        let model = ListPage(
            query: listed, page: page, statistics: statistics, schools: schools, rules: service.rules, session: session,
            notice: notice)
        return PageParts.page(PageTemplates.render(model, "list"))
    }

    /// `query`'s page, or, when its search is too broad to sort as asked (`search_too_broad`), the
    /// first page newest first, with the refusal as a notice: a person sees documents and why they
    /// are in that order, not an error.
    static func listing(_ query: DocumentQuery, list: (DocumentQuery) async throws -> DocumentPage)
        async throws -> (query: DocumentQuery, page: DocumentPage, notice: String?)
    {
        do {
            return (query, try await list(query), nil)
        } catch let refusal as PreviewError where refusal.code == .searchTooBroad && query.sort != .newest {
            var newest = query
            (newest.sort, newest.after) = (.newest, nil)
            return (newest, try await list(newest), refusal.message + " Shown newest first.")
        }
    }

    init(
        query: DocumentQuery, page: DocumentPage, statistics: StorageStatistics, schools: [String] = [], rules: DocumentRules,
        session: Session?, notice: String? = nil
    ) {
        self.notice = notice
        let owner = query.owner ?? ""
        func label(_ type: String?) -> String {
            guard let type, !type.isEmpty, type != StorageStatistics.unspecifiedType else { return "No type" }
            return rules.type(id: type)?.label ?? type
        }
        let context = ListContext(query)
        ownerLabel = owner.isEmpty ? nil : owner
        self.owner = owner
        csrf = session?.csrfToken
        let shown = page.documents.count
        subtitle = "\(shown)\(page.next == nil ? "" : "+") of \(statistics.documents) total"
        let byType = statistics.byType.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        stats = [
            Stat(
                key: "total", label: "Total Documents", value: "\(statistics.documents)", detail: "\(statistics.versions) versions", tone: "blue",
                icon: "📁"),
            Stat(
                key: "shared", label: "Shared Documents", value: "\(statistics.sharedDocuments)", detail: "with a live link", tone: "green", icon: "🔗"
            ),
            Stat(
                key: "common", label: "Most Common Type", value: statistics.mostCommonType.map(label) ?? "—",
                detail: byType.count > 1 ? "of \(byType.count) types" : nil, tone: "purple", icon: "🏷️"),
            Stat(
                key: "storage", label: "Total Storage", value: Self.bytes(statistics.storedBytes),
                detail: statistics.dedupRatio >= 1.05 ? String(format: "%.1f× saved by dedup", statistics.dedupRatio) : nil, tone: "orange",
                icon: "💾")
        ]
        uploadTypes = rules.types.map { Option(value: $0.id, label: $0.label, extensions: $0.extensions.map { ".\($0)" }.joined(separator: ",")) }
        self.query = query.containing ?? ""
        let sortLabels: [(DocumentQuery.Sort, String)] = [
            (.newest, "Newest"), (.oldest, "Oldest"), (.title, "Name"), (.type, "Type"), (.mostShared, "Most Shared")
        ]
        sorts = sortLabels.map { Option(value: $0.0.rawValue, label: $0.1, selected: $0.0 == query.sort) }
        typeFilters =
            [Option(value: "", label: "All types", selected: query.type == nil, count: statistics.documents)]
            + byType.map { id, count in
                let filter = id == StorageStatistics.unspecifiedType ? "" : id
                return Option(value: id, label: label(id), selected: query.type == filter, count: count)
            }
        self.schools = Set(schools + statistics.bySchool.keys).sorted()
        // The school filtered by stays offered even when none of the owner's documents has it.
        schoolFilters = Set(self.schools + (query.school.map { [$0] } ?? [])).sorted()
            .map { Option(value: $0, label: $0, selected: $0 == query.school, count: statistics.bySchool[$0]) }
        sharedOnly = query.shared == true
        var active: [ActiveFilter] = []
        func without(_ change: (inout ListContext) -> Void) -> String {
            var narrower = context
            change(&narrower)
            return Self.path(owner: owner, items: narrower.items)
        }
        if let text = query.containing { active.append(ActiveFilter(label: "Search: \(text)", href: without { $0.text = nil })) }
        if let type = query.type { active.append(ActiveFilter(label: "Type: \(label(type))", href: without { $0.type = nil })) }
        if let school = query.school { active.append(ActiveFilter(label: "School: \(school)", href: without { $0.school = nil })) }
        if let shared = query.shared { active.append(ActiveFilter(label: shared ? "Shared" : "Not shared", href: without { $0.shared = nil })) }
        activeFilters = active
        activeCount = active.count
        hasActive = !active.isEmpty
        clearFilters = active.isEmpty ? nil : Self.path(owner: owner, items: ListContext(sort: context.sort).items)
        typeLabels = Self.json(Dictionary(uniqueKeysWithValues: rules.types.map { ($0.id, $0.label) }))
        cards = page.documents.map { document in
            let status = document.status
            let pictured = status == .done && document.previewStatus == .ready
            let statusLabel = document.previewStatus == .noPreview && status == .done ? "No preview" : Self.statusLabel(status)
            let shares = document.liveShares
            let shared = shares > 0 ? "Shared: \(shares > 20 ? "20+" : "\(shares)")" : nil
            let date = Self.day(document.createdAt)
            let typeLabel = label(document.type)
            let thumbnail = { (scale: Int) in
                let (width, height) = (scale * Self.thumbnailBox.width / 2, scale * Self.thumbnailBox.height / 2)
                return "/v1/documents/\(document.id)/preview?width=\(width)&height=\(height)&format=webp"
            }
            return Card(
                id: document.id, href: context.carried("/ui/documents/\(document.id)"), title: document.title, typeLabel: typeLabel,
                typeEmoji: Self.emoji(document.type), school: document.school ?? "General", date: date,
                version: document.version, status: status.rawValue, statusLabel: statusLabel,
                thumbnail: pictured ? thumbnail(2) : nil,
                thumbnailSet: pictured ? [2, 3, 4].map { "\(thumbnail($0)) \($0 * Self.thumbnailBox.width / 2)w" }.joined(separator: ", ") : nil,
                teaser: pictured && document.kind.category == .video ? Self.teaser(of: document.id) : nil,
                shared: shared,
                spoken:
                    "\(document.title). \(typeLabel). \(shares == 0 ? "Not shared" : "Shared with \(shares) school\(shares == 1 ? "" : "s")"). "
                    + "Uploaded \(date).",
                error: status == .failed ? document.errorMessage : nil)
        }
        filteredOut = page.documents.isEmpty && statistics.documents > 0
        more = page.next.map { next in
            Self.path(owner: owner, items: context.items + [("cursor", next.token)])
        }
    }

    /// Where a video's teaser is served (a 404 until its playback job made it, which the script takes as none).
    static func teaser(of id: String) -> String { "/v1/documents/\(id)/trickplay/\(DocumentService.Playback.Teaser.fileName)" }

    /// A card's thumbnail box in CSS pixels (16:9) at its widest; its image is offered at this
    /// size, 1.5 and 2 times it, in WebP, and the screen takes what its box and density need
    /// (`sizes`, ``thumbnailSizes``).
    static let thumbnailBox = (width: 256, height: 144)
    static let thumbnailSizes = "(max-width: 600px) 46vw, 256px"
    let thumbnailSizes = Self.thumbnailSizes
    /// What the script makes its cards' badges and thumbnails from, as the server makes its own.
    let emojiTable = Self.json(Self.emojiByType)
    let boxSize = "\(Self.thumbnailBox.width)x\(Self.thumbnailBox.height)"

    /// `object` as JSON for a `data-` attribute.
    private static func json(_ object: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// A day as people read it: "2 Dec 2026".
    static func day(_ date: Date) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_GB"), timeZone: TimeZone(identifier: "UTC")!)
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
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
