import Foundation
import PreviewCore

/// What a share's page reports of one view of it (one load of the page, `view`, by one visitor,
/// `visitor`: random ids the page makes and keeps, nothing else about who): the seconds each page
/// was at least half in view while the tab was visible, the stretches of the video played, and how
/// often a page or picture was opened zoomed and the download taken. Each report holds the view's
/// totals so far, so a report sent twice, or one lost, changes nothing the next does not mend.
public struct ShareReadingReport: Codable, Sendable, Equatable {
    /// The page's pass for the share's reports (``SharedPage``): the reports of a password-protected
    /// share come from a page that was given the password.
    package var pass: String
    package var visitor: String
    package var view: String
    /// Seconds in view by page number (JSON object keys are strings).
    package var pages: [String: Double]?
    /// `[from, to]` seconds of the video, as the browser's `played` ranges.
    package var played: [[Double]]?
    /// The video's length in seconds, when it has one.
    package var duration: Double?
    /// Times a page or picture was opened zoomed, and the download taken, in this view.
    package var zooms: Int?
    package var downloads: Int?

    package init(
        pass: String, visitor: String, view: String, pages: [String: Double]? = nil, played: [[Double]]? = nil, duration: Double? = nil,
        zooms: Int? = nil, downloads: Int? = nil
    ) {
        (self.pass, self.visitor, self.view, self.pages, self.played, self.duration) = (pass, visitor, view, pages, played, duration)
        (self.zooms, self.downloads) = (zooms, downloads)
    }
}

/// A stretch of a video that was played, in seconds from its start.
public struct PlayedSpan: Codable, Sendable, Equatable {
    package var from: Double
    package var to: Double

    package init(from: Double, to: Double) {
        (self.from, self.to) = (from, to)
    }

    package var length: Double { to - from }
}

/// One view of a share's page as it is kept: its totals so far, bounded by the time it has lasted.
public struct ShareViewRecord: Sendable, Equatable {
    package var view: String
    package var visitor: String
    package var startedAt: Date
    package var updatedAt: Date
    package var pages: [Int: Double]
    package var played: [PlayedSpan]
    package var duration: Double?
    package var actions: ShareViewActions

    package init(
        view: String, visitor: String, startedAt: Date, updatedAt: Date, pages: [Int: Double] = [:], played: [PlayedSpan] = [],
        duration: Double? = nil, actions: ShareViewActions = ShareViewActions()
    ) {
        (self.view, self.visitor, self.startedAt, self.updatedAt) = (view, visitor, startedAt, updatedAt)
        (self.pages, self.played, self.duration, self.actions) = (pages, played, duration, actions)
    }

    /// The views a share keeps, newest: a share with more has its oldest forgotten.
    package static let kept = 10_000
}

/// One visit: a visitor's views of a share's page, each begun within ``ShareReading/visitGap`` of
/// the end of the one before, with what they read and watched in all.
public struct ShareReadingVisit: Encodable, Sendable, Equatable {
    package var visitor: String
    package var startedAt: Date
    package var endedAt: Date
    /// Loads of the page in this visit.
    package var views: Int
    package var reading: ShareReading
}

/// What was read and watched through a share, in one visit or in all of them: seconds per page
/// (in page order), the stretches of the video played (merged: seeks and replays counted once),
/// the share of the video they cover, and the zooms and downloads.
public struct ShareReading: Encodable, Sendable, Equatable {
    package struct PageSeconds: Encodable, Sendable, Equatable {
        package var page: Int
        package var seconds: Double
    }

    package var pages: [PageSeconds]
    package var played: [PlayedSpan]
    package var durationSeconds: Double?
    /// The played stretches' part of the video, 0…1; nil without a video.
    package var watched: Double?
    package var zooms: Int
    package var downloads: Int

    enum CodingKeys: String, CodingKey {
        case pages, played, watched, zooms, downloads
        case durationSeconds = "duration_s"
    }

    /// A reading of these seconds per page and played stretches (merged here) of a video this long,
    /// and these zooms and downloads.
    package init(pages seconds: [Int: Double], played: [PlayedSpan], duration: Double?, actions: ShareViewActions = ShareViewActions()) {
        (zooms, downloads) = (actions.zooms, actions.downloads)
        pages = seconds.keys.sorted().map { PageSeconds(page: $0, seconds: Self.rounded(seconds[$0]!)) }
        self.played = Self.merged(played)
        durationSeconds = duration
        watched = duration.flatMap { duration in
            duration > 0 ? min(1, self.played.reduce(0) { $0 + $1.length } / duration) : nil
        }
    }

    /// The reading of `views` together.
    package init(_ views: [ShareViewRecord]) {
        var seconds: [Int: Double] = [:]
        for view in views {
            for (page, time) in view.pages { seconds[page, default: 0] += time }
        }
        self.init(
            pages: seconds, played: views.flatMap(\.played), duration: views.compactMap(\.duration).max(),
            actions: views.reduce(ShareViewActions()) { $0 + $1.actions })
    }

    /// Tenths of a second: what a report's timer can tell.
    static func rounded(_ seconds: Double) -> Double { (seconds * 10).rounded() / 10 }

    /// A report's room past the time its view has lasted: the page counts up to one report's
    /// interval before its first report arrives, and the network delays reports.
    package static let slackSeconds: Double = 30
    /// Pages half in view at once, at most (small pages on a tall screen): the sum of a view's
    /// page seconds is bounded by this many times the time it lasted.
    package static let pagesInViewAtOnce: Double = 4
    /// The fastest playback counted: played stretches add up to at most this many times the time the view lasted.
    package static let fastestPlayback: Double = 2
    /// Views of one visitor less than this apart are one visit.
    package static let visitGap: TimeInterval = 600
    /// The largest report, in bytes.
    package static let maxReportBytes = 1024

    /// A report's totals: seconds by page, the stretches played, the video's length, zooms and downloads.
    package typealias Totals = (pages: [Int: Double], played: [PlayedSpan], duration: Double?, actions: ShareViewActions)
    /// Zooms and downloads a view may count: one a second of the time it lasted, at most this many.
    package static let maxActions = 1000

    /// `report` as a view's totals, or why it is refused: ids of 8–64 letters, digits, `-` and
    /// `_`; page numbers 1…100,000; finite, non-negative times; at most 32 played stretches.
    package static func totals(of report: ShareReadingReport) throws(PreviewError) -> Totals {
        guard isID(report.visitor), isID(report.view) else {
            throw PreviewError(.badRequest, "A reading report names its visitor and view with 8 to 64 letters, digits, '-' or '_'.")
        }
        var pages: [Int: Double] = [:]
        for (key, seconds) in report.pages ?? [:] {
            guard let page = Int(key), (1...100_000).contains(page), "\(page)" == key, seconds.isFinite, seconds >= 0 else {
                throw PreviewError(.badRequest, "A reading report's pages are page numbers with seconds (finite, not negative).")
            }
            pages[page] = seconds
        }
        let spans = report.played ?? []
        guard spans.count <= 32 else { throw PreviewError(.badRequest, "A reading report holds at most 32 played stretches.") }
        var played: [PlayedSpan] = []
        for span in spans {
            guard span.count == 2, span.allSatisfy({ $0.isFinite && $0 >= 0 }), span[0] <= span[1] else {
                throw PreviewError(.badRequest, "A played stretch is [from, to] in seconds, from not after to.")
            }
            played.append(PlayedSpan(from: span[0], to: span[1]))
        }
        if let duration = report.duration, !(duration.isFinite && duration >= 0) {
            throw PreviewError(.badRequest, "A reading report's duration is finite and not negative.")
        }
        let actions = ShareViewActions(zooms: report.zooms ?? 0, downloads: report.downloads ?? 0)
        guard actions.zooms >= 0, actions.downloads >= 0 else {
            throw PreviewError(.badRequest, "A reading report's zooms and downloads are counts, not negative.")
        }
        return (pages, played, report.duration, actions)
    }

    private static func isID(_ text: String) -> Bool {
        (8...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// `view` (kept before, or new) with a report's totals at `now`: each page's seconds and the
    /// played stretches only grow, and never past what the time since the view's first report
    /// allows (plus ``slackSeconds``): one page at most that long, all pages ``pagesInViewAtOnce``
    /// times it, the played stretches ``fastestPlayback`` times it, within the video's length; zooms
    /// and downloads one a second of it, at most ``maxActions``.
    package static func updated(
        _ view: ShareViewRecord, with totals: Totals, at now: Date
    ) -> ShareViewRecord {
        var view = view
        view.updatedAt = max(view.updatedAt, now)
        let lasted = max(0, view.updatedAt.timeIntervalSince(view.startedAt)) + slackSeconds
        for (page, seconds) in totals.pages { view.pages[page] = max(view.pages[page] ?? 0, min(seconds, lasted)) }
        let pageTotal = view.pages.values.reduce(0, +)
        if pageTotal > lasted * pagesInViewAtOnce {
            let scale = lasted * pagesInViewAtOnce / pageTotal
            view.pages = view.pages.mapValues { $0 * scale }
        }
        if let duration = totals.duration { view.duration = duration }
        let end = view.duration ?? .infinity
        var played = merged(
            view.played
                + totals.played.compactMap { span in
                    span.from < end ? PlayedSpan(from: span.from, to: min(span.to, end)) : nil
                })
        var allowed = lasted * fastestPlayback
        played = played.compactMap { span in
            defer { allowed -= span.length }
            guard allowed > 0 else { return nil }
            return span.length <= allowed ? span : PlayedSpan(from: span.from, to: span.from + allowed)
        }
        view.played = played
        let actionsAllowed = min(maxActions, Int(lasted))
        view.actions = ShareViewActions(
            zooms: max(view.actions.zooms, min(totals.actions.zooms, actionsAllowed)),
            downloads: max(view.actions.downloads, min(totals.actions.downloads, actionsAllowed)))
        return view
    }

    /// `spans` in order, those that overlap or touch (within half a second) made one.
    package static func merged(_ spans: [PlayedSpan]) -> [PlayedSpan] {
        var merged: [PlayedSpan] = []
        for span in spans.sorted(by: { $0.from < $1.from }) {
            if let last = merged.last, span.from <= last.to + 0.5 {
                merged[merged.count - 1].to = max(last.to, span.to)
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// `views` as visits, newest first: a visitor's views in order of their start, each joining
    /// the visit before when it began within ``visitGap`` of that visit's last report.
    package static func visits(_ views: [ShareViewRecord]) -> [ShareReadingVisit] {
        var visits: [(visitor: String, views: [ShareViewRecord])] = []
        var open: [String: Int] = [:]
        for view in views.sorted(by: { ($0.startedAt, $0.view) < ($1.startedAt, $1.view) }) {
            if let index = open[view.visitor],
                view.startedAt.timeIntervalSince(visits[index].views.map(\.updatedAt).max()!) <= visitGap
            {
                visits[index].views.append(view)
            } else {
                open[view.visitor] = visits.count
                visits.append((view.visitor, [view]))
            }
        }
        return visits.reversed().map { visit in
            ShareReadingVisit(
                visitor: visit.visitor, startedAt: visit.views[0].startedAt, endedAt: visit.views.map(\.updatedAt).max()!,
                views: visit.views.count, reading: ShareReading(visit.views))
        }
    }
}

extension ShareReadingVisit {
    enum CodingKeys: String, CodingKey {
        case visitor, views, reading
        case startedAt = "started_at"
        case endedAt = "ended_at"
    }
}
