import Foundation
import PreviewCore
import Testing

/// ``WorkPriority``: background renders run on the ``Offload``'s background lane, never on the
/// threads of the renders a person waits for, and at the priority of the threads that serve requests.
@Suite struct WorkPriorityTests {
    /// The one renders thread is held by a render that waits for the background one: only a lane
    /// of its own lets the background render run (else the two wait for each other until the time limit).
    @Test(.timeLimit(.minutes(1))) func backgroundRendersHaveThreadsOfTheirOwn() async throws {
        let offload = Offload(reads: 1, writes: 1, renders: 1, background: 1)
        let backgroundRan = DispatchSemaphore(value: 0)
        let (started, holding) = AsyncStream.makeStream(of: Void.self)
        let interactive = Task {
            try await offload.render { () throws(PreviewError) -> Bool in
                holding.yield()
                backgroundRan.wait()
                return WorkPriority.isLowered()
            }
        }
        for await _ in started { break }
        let background = try await WorkPriority.$current.withValue(.background) {
            try await offload.render { () throws(PreviewError) -> Bool in
                backgroundRan.signal()
                return WorkPriority.isLowered()
            }
        }
        #expect(try await interactive.value == false)
        #expect(!background, "this process's threads keep ordinary priority: threads they start would inherit it")
    }
}
