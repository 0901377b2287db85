import Foundation
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// What a document is shown as (`web/media.mustache`, the partial of the Detail, Viewer and share
/// pages), its files addressed by ``PageParts/MediaLinks``. One case is set: why it is not shown,
/// the note that its preview is being made, a video (`web/video.mustache`), a recording, a picture, a
/// paged document's pages (fetched, and so rendered, only when they scroll into view), or one preview image.
/// Every value is plain text: the templates escape it.
struct MediaView {
    struct Failed {
        let failedReason: String?
        let failedDownload: String?
    }

    struct NoPreview {
        let kindLabel: String
        let noPreviewDownload: String?
    }

    /// A recording plays from its original: nil when the link does not share it.
    struct Recording {
        let recordingSource: String?
    }

    struct Picture {
        let pictureSource: String
        let pictureAlt: String
        let pictureZoom: String
        /// The original's address and its size ("(4000×3000)"), where the page offers it.
        let original: String?
        let pixelSize: String
    }

    private(set) var failed: Failed?
    private(set) var making = false
    private(set) var noPreview: NoPreview?
    private(set) var video: VideoView?
    private(set) var recording: Recording?
    private(set) var picture: Picture?
    private(set) var pages: PagesView?
    /// A preview image of a document of no other case.
    private(set) var single: String?

    init(_ document: Document, playback: DocumentService.Playback?, links: PageParts.MediaLinks, texts: [Int: String] = [:]) {
        let kind = document.kind
        switch document.status {
        case .failed:
            failed = Failed(failedReason: document.errorMessage, failedDownload: links.download)
        // The media script shows the preview here once it is made.
        case .queued, .processing:
            making = true
        case .done where document.previewStatus == .noPreview:
            noPreview = NoPreview(kindLabel: kind.label, noPreviewDownload: links.download)
        case .done:
            switch kind.category {
            case .video:
                video = VideoView(document, playback: playback, links: links)
            case .audio:
                recording = Recording(recordingSource: links.offersDownload ? links.url("content") : nil)
            case .image:
                let size = document.width.map { w in document.height.map { " (\(w)×\($0))" } ?? "" } ?? ""
                picture = Picture(
                    pictureSource: links.url("preview", [("width", "1024")]), pictureAlt: document.title,
                    pictureZoom: links.zoom("\(document.id)~v\(document.version)"),
                    original: links.offersDownload ? links.url("content") : nil, pixelSize: size)
            default:
                if kind.isPaged, let count = document.pages, count > 0 {
                    pages = PagesView(document, pages: count, links: links, texts: texts)
                } else {
                    single = links.url("preview", [("width", "1024")])
                }
            }
        }
    }
}

/// A paged document's pages: the first ones written (each with its text as its description, for
/// those who cannot see it), the rest made by `web/media.js` as they approach from the addresses
/// given here, and past ``PageParts/maxPages`` a link to the original.
struct PagesView {
    struct Page {
        let number: Int
        /// The first page is asked for first.
        let eager: Bool
        let source: String
        /// On a signed-in page, each page at the width its screen needs.
        let widths: String?
        let ratio: String
        let zoom: String
        /// Its text as one run of words, when it describes the image.
        let words: String?
    }

    /// What `web/media.js` makes the pages past the written ones from.
    struct Later {
        let total: Int
        let laterRatio: String
        let pageSource: String
        let pageWidths: String
        let zoomPrefix: String
    }

    struct Beyond {
        let from: Int
        let through: Int
        let beyondDownload: String?
    }

    let pageCount: String
    let pageList: [Page]
    let later: Later?
    let beyond: Beyond?
    let pageSizes = PageParts.pageSizes

    init(_ document: Document, pages: Int, links: PageParts.MediaLinks, texts: [Int: String]) {
        // Sized before they load, so only the pages near the viewport are fetched.
        let ratio = document.width.flatMap { w in document.height.map { "\(w) / \($0)" } } ?? "1 / 1.414"
        let all = min(pages, PageParts.maxPages)
        let shown = min(all, links.written ?? all)
        let marks = links.highlight.map { [("highlight", $0)] } ?? []
        let format = links.written == nil ? [] : [PageParts.pageFormat]
        var described = 0
        pageList = (1...shown).map { page in
            var words: String?
            if let text = texts[page], !text.isEmpty, described + text.count <= PageParts.maxDescribedCharacters {
                described += text.count
                // Its lines read as one run of words (line breaks are no markup here).
                words = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            }
            let widths =
                links.written == nil
                ? nil
                : PageParts.pageWidths.map { width in
                    "\(links.url("preview", format + [("page", "\(page)"), ("width", "\(width)")] + marks)) \(width)w"
                }.joined(separator: ", ")
            return Page(
                number: page, eager: page == 1, source: links.url("preview", format + [("page", "\(page)"), ("width", "1024")] + marks),
                widths: widths, ratio: ratio, zoom: links.zoom("\(document.id)~v\(document.version)~p\(page)"), words: words)
        }
        pageCount = "\(pages) page\(pages == 1 ? "" : "s")"
        later =
            shown < all
            ? Later(
                total: all, laterRatio: ratio, pageSource: links.url("preview", [PageParts.pageFormat] + marks + [("page", "")]),
                pageWidths: PageParts.pageWidths.map(String.init).joined(separator: ","),
                zoomPrefix: links.zoom("\(document.id)~v\(document.version)~p")) : nil
        beyond = pages > all ? Beyond(from: all + 1, through: pages, beyondDownload: links.download) : nil
    }
}

/// A video's player (`web/video.mustache`): its HLS ladder first (a browser that plays HLS, Safari,
/// adapts to the network; the others skip it by its type or when it fails to load), its rendition
/// next (what every browser plays), the original after it (a browser that plays it natively may
/// pick it; only where the page offers the original: a share without downloads plays what was
/// made of it, never the file with its metadata), then the filmstrip of its thumbnails. With
/// nothing to play, its poster and why.
struct VideoView {
    struct Source {
        let source: String
        let type: String
    }

    /// The thumbnails of a video's seconds, each a tile of a sprite sheet and a link to its second.
    struct Filmstrip {
        struct Tile {
            let href: String
            let time: String
            let style: String
        }

        let tiles: [Tile]
    }

    /// A highlight reel's plays, on a bar as long as the video (each as wide as its share of it, and
    /// never narrower than a touch target: the bar scrolls then), each a link to its start, with
    /// buttons to the previous and the next (`web/plays.js`).
    struct Plays {
        struct Mark {
            let number: Int
            let start: String
            let label: String
            let style: String
        }

        let chapters: String
        let marks: [Mark]
    }

    let poster: String
    let title: String
    let sources: [Source]
    /// Why there is nothing to play (a share without downloads whose playable version is not there).
    let unplayable: String?
    let refusal: String?
    /// Filled in by the media script from the document's progress while its rendition is made.
    let renditionPending: Bool
    let filmstrip: Filmstrip?
    let plays: Plays?

    init(_ document: Document, playback: DocumentService.Playback?, links: PageParts.MediaLinks) {
        var sources: [Source] = []
        if playback?.ladder != nil {
            sources.append(Source(source: links.url("hls/\(DocumentService.Playback.Ladder.masterName)"), type: DocumentService.playlistMime))
        }
        if let rendition = playback?.rendition {
            sources.append(Source(source: links.url("renditions/\(rendition.name)"), type: "\(rendition.mime); codecs=\"\(rendition.codecs)\""))
        }
        if links.offersDownload { sources.append(Source(source: links.url("content"), type: document.mime)) }
        poster = links.url("preview", [("width", "1024")])
        title = document.title
        self.sources = sources
        unplayable =
            sources.isEmpty
            ? playback?.renditionError.map { "This video cannot be played here: \($0.message)" }
                ?? "This video is not playable yet: its playable version is still being made."
            : nil
        refusal = sources.isEmpty ? nil : playback?.renditionError.map { "No rendition: \($0.message)" }
        renditionPending = !sources.isEmpty && playback?.renditionError == nil && playback?.rendition == nil
        plays = sources.isEmpty ? nil : playback?.plays.flatMap { Self.plays($0, links: links) }
        let target = playback?.rendition.map { links.url("renditions/\($0.name)") } ?? (links.offersDownload ? links.url("content") : nil)
        guard !sources.isEmpty, let trickplay = playback?.trickplay?.layout, let target else {
            filmstrip = nil
            return
        }
        filmstrip = Filmstrip(
            tiles: (0..<trickplay.tiles).map { index in
                let (sheet, offset) = (index / trickplay.perSheet, index % trickplay.perSheet)
                let (x, y) = ((offset % trickplay.columns) * trickplay.tileWidth, (offset / trickplay.columns) * trickplay.tileHeight)
                let seconds = Int(Double(index) * trickplay.intervalSeconds)
                // A sheet is as wide as its tiles, up to a row of them.
                let across = min(trickplay.columns, trickplay.tiles - sheet * trickplay.perSheet)
                return Filmstrip.Tile(
                    href: "\(target)#t=\(seconds)", time: "\(seconds / 60):\(String(format: "%02d", seconds % 60))",
                    style: "width:\(trickplay.tileWidth / 2)px;height:\(trickplay.tileHeight / 2)px;"
                        + "background:url(\(links.url("trickplay/sprite-\(sheet).jpg"))) -\(x / 2)px -\(y / 2)px / "
                        + "\(across * trickplay.tileWidth / 2)px auto"
                )
            })
    }

    /// The marks of `plays` (nil for a video of one shot): each sized on the bar by its length,
    /// labelled with its number and times.
    static func plays(_ plays: DocumentService.Playback.Plays, links: PageParts.MediaLinks) -> Plays? {
        guard plays.plays.count > 1 else { return nil }
        func clock(_ seconds: Double) -> String {
            let whole = Int(seconds.rounded(.down))
            return "\(whole / 60):\(String(format: "%02d", whole % 60))"
        }
        return Plays(
            chapters: links.url("trickplay/\(DocumentService.Playback.Plays.chaptersName)"),
            marks: plays.plays.enumerated().map { index, play in
                Plays.Mark(
                    number: index + 1, start: String(format: "%.3f", play.start),
                    label: "Play \(index + 1), \(clock(play.start))–\(clock(play.end))",
                    style: String(format: "flex-grow:%.3f", play.end - play.start))
            })
    }
}
