import Foundation
import PreviewDomain
import Testing

/// Issue 70, item 1: the rules a share's reading reports are kept by, as pure functions — what a
/// video's played stretches come to, what a report may claim, which views are one visit.
@Suite struct ShareReadingRulesTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func view(_ name: String, visitor: String = "visitor-1", at offset: TimeInterval, lasting: TimeInterval = 0) -> ShareViewRecord {
        ShareViewRecord(view: name, visitor: visitor, startedAt: start + offset, updatedAt: start + offset + lasting)
    }

    @Test func seeksAndReplaysAreCountedOnce() {
        let played = ShareReading.merged([
            PlayedSpan(from: 150, to: 170), PlayedSpan(from: 0, to: 60), PlayedSpan(from: 30, to: 105), PlayedSpan(from: 105.3, to: 106),
            PlayedSpan(from: 160, to: 165)
        ])
        #expect(played == [PlayedSpan(from: 0, to: 106), PlayedSpan(from: 150, to: 170)])
        var watched = view("v-aaaaaaaa", at: 0, lasting: 400)
        watched.played = played
        watched.duration = 190
        #expect(ShareReading([watched]).watched.map { ($0 * 1000).rounded() } == 663, "126 of 190 s")
    }

    @Test func aReportClaimsNoMoreThanItsViewLasted() {
        let fresh = view("v-aaaaaaaa", at: 0)
        // Ten seconds in: one page at most 40 s (10 and the slack), the video at most twice that, within its length.
        // Zooms and downloads: one a second of it at most (40).
        let claimed = ShareReading.updated(
            fresh,
            with: (
                pages: [1: 1_000, 2: 12], played: [PlayedSpan(from: 0, to: 500)], duration: 300,
                actions: ShareViewActions(zooms: 3, downloads: 1_000_000)
            ), at: start + 10)
        #expect(claimed.pages == [1: 40, 2: 12])
        #expect(claimed.played == [PlayedSpan(from: 0, to: 80)])
        #expect(claimed.actions == ShareViewActions(zooms: 3, downloads: 40))
        // Totals only grow: a later, smaller report keeps what was said.
        let later = ShareReading.updated(claimed, with: (pages: [1: 5], played: [], duration: 300, actions: ShareViewActions()), at: start + 20)
        #expect(later.pages[1] == 40 && later.played == claimed.played && later.updatedAt == start + 20 && later.actions == claimed.actions)
        // Many pages at once: their sum is bounded by four pages' worth.
        let many = ShareReading.updated(
            fresh,
            with: (pages: Dictionary(uniqueKeysWithValues: (1...10).map { ($0, 40.0) }), played: [], duration: nil, actions: ShareViewActions()),
            at: start + 10)
        #expect(abs(many.pages.values.reduce(0, +) - 160) < 0.001)
    }

    @Test func reportsThatAreNotReportsAreRefused() {
        let good = ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", pages: ["2": 3])
        #expect((try? ShareReading.totals(of: good))?.pages == [2: 3])
        for bad in [
            ShareReadingReport(pass: "p", visitor: "v", view: "view-0001"),
            ShareReadingReport(pass: "p", visitor: "visitor 1", view: "view-0001"),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", pages: ["02": 3]),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", pages: ["1": -1]),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", played: [[1, 2, 3]]),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", played: Array(repeating: [1, 2], count: 33)),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", duration: -.infinity),
            ShareReadingReport(pass: "p", visitor: "visitor-1", view: "view-0001", zooms: -1)
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try ShareReading.totals(of: bad) }
        }
    }

    @Test func aVisitorsViewsWithinTenMinutesAreOneVisit() {
        let visits = ShareReading.visits([
            view("v-aaaaaaaa", at: 0, lasting: 100),
            view("v-bbbbbbbb", at: 100 + 599),
            view("v-cccccccc", visitor: "visitor-2", at: 50),
            view("v-dddddddd", at: 100 + 599 + 601)
        ])
        #expect(visits.map(\.views) == [1, 1, 2], "newest first")
        #expect(visits.map(\.visitor) == ["visitor-1", "visitor-2", "visitor-1"])
        #expect(visits.last?.endedAt == start + 699)
    }
}
