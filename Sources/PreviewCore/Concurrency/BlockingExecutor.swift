import Foundation

/// One lane of an ``Offload``: `width` threads of its own for blocking calls. At most `width` calls
/// run at once; callers beyond wait in a queue, suspended, holding no thread.
///
/// The threads start with the executor and live as long as it does.
final class BlockingExecutor: Sendable {
    private let jobs = JobQueue()

    init(width: Int) {
        for index in 0..<max(1, width) {
            let thread = Thread { [jobs] in jobs.serve() }
            thread.name = "docpreview-blocking-\(index)"
            thread.start()
        }
    }

    deinit { jobs.close() }

    /// Runs `work` on one of the executor's threads and returns its result.
    func run<T: Sendable>(_ work: sending @escaping () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            jobs.push { continuation.resume(with: Result { try work() }) }
        }
    }

    /// A FIFO of closures with a condition variable; `serve()` runs them until `close()`.
    private final class JobQueue: @unchecked Sendable {  // every field is touched with `condition` held
        private let condition = NSCondition()
        private var pending: [() -> Void] = []
        private var closed = false

        func push(_ job: @escaping () -> Void) {
            condition.lock()
            pending.append(job)
            condition.signal()
            condition.unlock()
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }

        func serve() {
            while true {
                condition.lock()
                while pending.isEmpty && !closed { condition.wait() }
                if pending.isEmpty { condition.unlock(); return }
                let job = pending.removeFirst()
                condition.unlock()
                job()
            }
        }
    }
}
