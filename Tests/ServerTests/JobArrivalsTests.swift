import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewServer
import PreviewWeb
import PreviewStore
import PreviewTestSupport
import Synchronization
import Testing

@Suite struct JobArrivalsTests {
    /// An idle worker waiting on arrivals wakes when a job is announced, not at its next poll,
    /// also when the announcement comes before its wait began (after it looked for a job).
    @Test func anAnnouncementWakesAWaitingWorker() async throws {
        let arrivals = JobArrivals()
        let seen = arrivals.announcements
        async let waited = arrivals.wait(since: seen, upTo: .seconds(3600))
        try await Task.sleep(for: .milliseconds(50))  // either order is tested: the announcement after the wait began, or before
        arrivals.announce()
        #expect(await waited == .announced)
        let missed = arrivals.announcements
        arrivals.announce()
        #expect(await arrivals.wait(since: missed, upTo: .seconds(3600)) == .announced)
    }

    @Test func withoutAnnouncementTheWaitEndsAtItsTimeout() async {
        let arrivals = JobArrivals()
        #expect(await arrivals.wait(since: arrivals.announcements, upTo: .milliseconds(50)) == .timedOut)
        // A timeout that fires before the wait is registered still ends it.
        #expect(await arrivals.wait(since: arrivals.announcements, upTo: .zero) == .timedOut)
    }
}
