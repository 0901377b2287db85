import Foundation
import Testing

/// A trait for tests whose bodies block their thread (child processes, sockets, semaphores, sleeps,
/// seconds of native work): they run on ``BlockingTestThreads`` instead of Swift's cooperative
/// threads. Swift Testing runs a synchronous test on the cooperative pool, which has a thread a
/// core; two such tests blocked at once on this 2-core machine left none for an in-process server
/// in another test, which then missed what it was waiting for.
///
/// Only for tests with synchronous bodies: an async test's child tasks (an in-process server's
/// among them) would follow it onto these few threads.
package struct BlockingTest: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(BlockingTestThreads.shared) { try await function() }
    }
}

extension Trait where Self == BlockingTest {
    /// Runs the test (each test of a suite) on ``BlockingTestThreads``; see ``BlockingTest``.
    package static var blocking: Self { BlockingTest() }
}

/// A fixed set of threads, one a core as the cooperative pool has, that run the jobs of
/// ``BlockingTest`` tests in the order they come: as many blocking tests run at once as before,
/// and the cooperative pool stays free for everything else.
package final class BlockingTestThreads: TaskExecutor, @unchecked Sendable {
    package static let shared = BlockingTestThreads(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private static let marker = "docpreview.blocking-test-thread"
    /// Guarded by `waiting`.
    private var jobs: [UnownedJob] = []
    private let waiting = NSCondition()

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [self] in run() }
            thread.name = "blocking-test-\(index)"
            thread.start()
        }
    }

    /// Whether the calling thread is one of these.
    package static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        waiting.lock()
        jobs.append(job)
        waiting.signal()
        waiting.unlock()
    }

    private func run() -> Never {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            waiting.lock()
            while jobs.isEmpty { waiting.wait() }
            let next = jobs.removeFirst()
            waiting.unlock()
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
