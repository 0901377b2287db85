import Foundation

/// A share's visits in all, kept as its reports come (its views may be forgotten, these totals
/// are not): what its owner's list of shares shows.
public struct ShareReadingSummary: Encodable, Sendable, Equatable {
    package var visits: Int
    package var lastVisitAt: Date?
    /// Seconds per page and played stretches of every view, and the video's length.
    package var pages: [Int: Double]
    package var played: [PlayedSpan]
    package var duration: Double?
    package var actions: ShareViewActions

    package init(
        visits: Int = 0, lastVisitAt: Date? = nil, pages: [Int: Double] = [:], played: [PlayedSpan] = [], duration: Double? = nil,
        actions: ShareViewActions = ShareViewActions()
    ) {
        (self.visits, self.lastVisitAt, self.pages, self.played, self.duration) = (visits, lastVisitAt, pages, played, duration)
        self.actions = actions
    }

    package var reading: ShareReading { ShareReading(pages: pages, played: played, duration: duration, actions: actions) }

    /// These totals with view `view` as it is now, `kept` as it was before (nil for a new view),
    /// which begins a visit when `newVisit`.
    package func adding(_ view: ShareViewRecord, replacing kept: ShareViewRecord?, newVisit: Bool) -> ShareReadingSummary {
        var summary = self
        if newVisit { summary.visits += 1 }
        summary.lastVisitAt = max(lastVisitAt ?? view.updatedAt, view.updatedAt)
        for (page, seconds) in view.pages { summary.pages[page, default: 0] += seconds - (kept?.pages[page] ?? 0) }
        summary.played = ShareReading.merged(played + view.played)
        summary.duration = view.duration ?? duration
        summary.actions = actions + (view.actions - (kept?.actions ?? ShareViewActions()))
        return summary
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(visits, forKey: .visits)
        try container.encodeIfPresent(lastVisitAt, forKey: .lastVisitAt)
        try container.encode(reading, forKey: .reading)
    }

    enum CodingKeys: String, CodingKey {
        case visits, reading
        case lastVisitAt = "last_visit_at"
    }
}
