import Foundation
import Hummingbird
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewServer
import PreviewStore

/// `GET /ui/documents/{id}`: one document — its type, title and description, its facts, its preview
/// (a player, the pages, a picture, each zoomable), and what can be done with it: edit its labels,
/// share it with schools (`web/detail.js`), restore or upload a version, download, delete; the
/// links its description holds shown as cards (`web/cards.js`).
struct DetailPage {
    let pageTitle: String
    let stylesheet = StaticAsset.style.url
    let scripts = [
        StaticAsset.zoom.url, StaticAsset.common.url, StaticAsset.upload.url, StaticAsset.media.url, StaticAsset.plays.url,
        StaticAsset.clip.url, StaticAsset.detail.url, StaticAsset.cards.url
    ]
    let csrf: String?
    let signOutPath = PagePaths.signOut
    let owner: String
    let ownerLabel: String
    let listPath: String
    let previous: Neighbour?
    let next: Neighbour?
    let id: String
    /// The current version's id (a new version's upload is of it).
    let currentID: String
    let title: String
    let typeID: String
    let typeLabel: String
    let description: String
    /// The owner's schools for the Edit dialog's list, this document's selected.
    let schools: [SchoolOption]
    let maxTitle = PageParts.maxTitle
    let maxDescription = PageParts.maxDescription
    /// The file types a new version may be (its type's extensions), for the file picker.
    let accept: String
    /// Whether there are versions before the current one.
    let earlier: Bool
    let notice: String?
    let error: String?
    let facts: [Fact]
    let viewerPath: String
    let downloadPath: String
    let deletePath: String
    let sharedCount: Int?
    /// The pages the Share dialog lets its owner draw boxes to remove on (a picture's one); nil for none.
    let drawnPages: Int?
    let media: MediaView
    /// "Clip from here" under a video's player (`web/clip.js`), when there is a player.
    let clip: ClipPanel?
    /// The newest ``shownVersions`` versions, then the older ones (folded away).
    let versions: [Version]
    let olderVersions: [Version]
    let olderCount: Int?

    struct ClipPanel {
        /// The video's length in seconds, as the start and end fields take it.
        let duration: String
    }

    struct Neighbour {
        let href: String
        let title: String
    }

    struct Fact {
        let label: String
        let value: String
        /// The name a script finds it by, to change it in place.
        var key: String? = nil
    }

    struct SchoolOption {
        let name: String
        let selected: Bool
    }

    struct Version {
        let number: Int
        let href: String
        let filename: String
        let size: String
        let uploaded: String
        let status: String
        let current: Bool
        let shown: Bool
        let restorePath: String
        /// The earlier version whose bytes this one has again (a restore), if any.
        let restoredFrom: Int?
    }

    static func response(documents: DocumentService, id: String, list: ListContext, session: Session?) async throws -> Response {
        let versions = try await documents.versions(of: id)
        guard let document = versions.first(where: { $0.id == id }) else { throw APIError(.notFound, "No document \(id).") }
        let (previous, next, _) = try await PageParts.neighbours(of: versions[0], in: documents, listing: list.query(owner: document.owner))
        let shares = try await documents.shares(of: id)
        let media = try await PageParts.media(of: document, in: documents)
        let schools = try await documents.schools(owner: document.owner).map(\.name)
        let model = DetailPage(
            document, versions: versions, neighbours: (previous, next), list: list, schools: schools,
            liveShares: shares.filter { $0.status(at: documents.clock.now) == .live }.count,
            media: media, rules: documents.rules, session: session)
        return PageParts.page(PageTemplates.render(model, "detail"))
    }

    init(
        _ document: Document, versions: [Document], neighbours: (Document?, Document?), list: ListContext, schools: [String] = [], liveShares: Int,
        media: MediaView,
        rules: DocumentRules, session: Session?
    ) {
        let current = versions[0]
        owner = document.owner
        ownerLabel = owner.isEmpty ? "(no owner)" : owner
        listPath = ListPage.path(owner: owner, items: list.items)
        previous = neighbours.0.map { Neighbour(href: list.carried("/ui/documents/\($0.id)"), title: $0.title) }
        next = neighbours.1.map { Neighbour(href: list.carried("/ui/documents/\($0.id)"), title: $0.title) }
        id = document.id
        currentID = current.id
        drawnPages = document.kind.isPaged ? document.pages.flatMap { $0 > 0 ? $0 : nil } : document.kind.category == .image ? 1 : nil
        title = document.title
        pageTitle = document.title
        typeID = document.type ?? ""
        typeLabel = PageParts.typeLabel(document, rules: rules)
        description = document.description
        self.schools = Set(schools + (document.school.map { [$0] } ?? [])).sorted()
            .map { SchoolOption(name: $0, selected: $0 == document.school) }
        accept = document.type.flatMap(rules.type(id:)).map { $0.extensions.map { ".\($0)" }.joined(separator: ",") } ?? ""
        earlier = versions.count > 1
        csrf = session?.csrfToken
        notice = document.id == current.id ? nil : "This is version \(document.version); the current one is v\(current.version)."
        error = document.status == .failed ? document.errorMessage ?? "The document could not be processed." : nil
        var facts = [
            Fact(label: "Version", value: "v\(document.version) of \(versions.count)"),
            Fact(label: "School", value: document.school ?? "General", key: "school"),
            Fact(label: "Uploaded", value: Self.readable(document.createdAt)),
            Fact(label: "File", value: document.filename),
            Fact(label: "File type", value: document.kind.rawValue.uppercased()),
            Fact(label: "Size", value: ListPage.bytes(document.size)),
            Fact(label: "Status", value: ListPage.statusLabel(document.status))
        ]
        if let pages = document.pages { facts.append(Fact(label: "Pages", value: "\(pages)")) }
        if let seconds = document.durationSeconds { facts.append(Fact(label: "Duration", value: Self.duration(seconds))) }
        self.facts = facts
        viewerPath = list.carried(ViewerPage.path(of: document.id))
        downloadPath = "/v1/documents/\(document.id)/content?download=1"
        deletePath = "/ui/documents/\(document.id)/delete"
        sharedCount = liveShares > 0 ? liveShares : nil
        self.media = media
        clip =
            media.video.map { $0.unplayable == nil } == true
            ? document.durationSeconds.map { ClipPanel(duration: String(format: "%.2f", $0)) } : nil
        let oldestFirst = versions.reversed()
        let rows = versions.map { version in
            let earlier = oldestFirst.first { $0.version < version.version && $0.sha256 == version.sha256 }
            return Version(
                number: version.version, href: "/ui/documents/\(version.id)", filename: version.filename,
                size: ListPage.bytes(version.size), uploaded: Self.readable(version.createdAt),
                status: ListPage.statusLabel(version.status), current: version.id == current.id, shown: version.id == document.id,
                restorePath: "/ui/documents/\(version.id)/restore?version=\(version.version)", restoredFrom: earlier?.version)
        }
        self.versions = Array(rows.prefix(Self.shownVersions))
        olderVersions = Array(rows.dropFirst(Self.shownVersions))
        olderCount = olderVersions.isEmpty ? nil : olderVersions.count
    }

    /// The versions listed before "Show N more versions".
    static let shownVersions = 10

    /// A time as people read it: "27 Nov 2026, 09:20 UTC".
    static func readable(_ date: Date) -> String {
        var style = Date.FormatStyle(
            date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_GB"), timeZone: TimeZone(identifier: "UTC")!)
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style) + " UTC"
    }

    /// A duration as `m:ss` (or `h:mm:ss`).
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
