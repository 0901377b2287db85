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

    /// Runs `work` on one of the executor's threads and returns its result. A caller cancelled
    /// meanwhile stops waiting at once with `CancellationError`: `work` not started yet never runs;
    /// started, it runs on to its end on its thread (nothing can hurry a blocking call), its result
    /// dropped.
    func run<T: Sendable>(_ work: sending @escaping () throws -> T) async throws -> T {
        let answer = Answer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard answer.wait(continuation) else { return }
                jobs.push {
                    guard answer.isAwaited else { return }
                    answer.resume(with: Result { try work() })
                }
            }
        } onCancel: {
            answer.resume(with: .failure(CancellationError()))
        }
    }

    /// The continuation of one ``run(_:)``, resumed once: by the work's result or by cancellation,
    /// whichever comes first.
    private final class Answer<T: Sendable>: Sendable {
        private enum State {
            case notYet
            case waiting(CheckedContinuation<T, any Error>)
            case answered
        }

        private let state = Locked(State.notYet)

        /// Keeps `continuation` to resume; false (and resumed with `CancellationError`) when the
        /// caller was cancelled before it began to wait.
        func wait(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
            let cancelled = state.withLock { state -> Bool in
                guard case .notYet = state else { return true }
                state = .waiting(continuation)
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        /// Whether the caller still waits for the work.
        var isAwaited: Bool { state.withLock { if case .waiting = $0 { true } else { false } } }

        func resume(with result: Result<T, any Error>) {
            let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
                defer { state = .answered }
                if case let .waiting(continuation) = state { return continuation }
                return nil
            }
            waiting?.resume(with: result)
        }
    }

    /// A FIFO of closures with a condition variable; `serve()` runs them until `close()`. The
    /// condition is where the lane's own threads wait for work: nothing else ever waits on it.
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
