import Foundation
import PreviewCore
import PreviewDomain

/// What each school read and watched through its share: the reports of the share's page, and
/// their visits for the owner.
extension DocumentService {
    /// Keeps a reading report of `share`'s page at the service's time: `bad_request` for a report
    /// that is not one. The caller opened the share (``openShare(token:)``, which refuses one that
    /// ended: nothing is kept then) and checked the report's pass.
    package func recordReading(_ report: ShareReadingReport, of share: ShareRecord) async throws {
        let totals = try ShareReading.totals(of: report)
        try await store.index.recordShareView(share: share.id, view: report.view, visitor: report.visitor, totals: totals, at: clock.now)
    }

    /// The visits of share `shareID` of document `id` among its newest ``visitsViews`` views, newest
    /// first; `not_found` when it is not one of that document's shares.
    package func readingVisits(document id: String, share shareID: String) async throws -> [ShareReadingVisit] {
        guard try await shares(of: id).contains(where: { $0.id == shareID }) else {
            throw PreviewError(.notFound, "Document \(id) has no share \(shareID).")
        }
        return ShareReading.visits(try await store.index.shareViews(share: shareID, limit: Self.visitsViews))
    }

    /// The views a share's list of visits is made of, newest: its summary counts them all.
    static let visitsViews = 2000

    /// The visits of each of `shares` in all, by share id.
    package func readingSummaries(of shares: [ShareRecord]) async throws -> [String: ShareReadingSummary] {
        try await store.index.shareReadingSummaries(shares: shares.map(\.id))
    }
}
