import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// ``WorkPriority``: background renders run on the ``Offload``'s background lane, under
/// `SCHED_IDLE`, and never on the threads of the renders a person waits for.
@Suite struct WorkPriorityTests {
    /// The thread a render ran on, and whether it was under SCHED_IDLE.
    struct Place: Sendable {
        var thread: UInt
        var idle: Bool
        static func here() throws(PreviewError) -> Place { Place(thread: UInt(pthread_self()), idle: WorkPriority.isLowered()) }
    }

    @Test func backgroundRendersRunOnIdleThreadsOfTheirOwn() async throws {
        // The tests' shared lanes: threads that end at a test's end could be taken for leaks at the run's.
        let offload = Offload.forTests
        let interactive: Place = try await offload.render(Place.here)
        let background: Place = try await WorkPriority.$current.withValue(.background) { try await offload.render(Place.here) }
        #expect(!interactive.idle && background.idle)
        #expect(interactive.thread != background.thread)
        // A task started from background work is background work too.
        let inherited: Place = try await WorkPriority.$current.withValue(.background) {
            try await Task { try await offload.render(Place.here) }.value
        }
        #expect(inherited.idle)
        #expect(!WorkPriority.isLowered(), "the caller's own thread is untouched")
    }
}
