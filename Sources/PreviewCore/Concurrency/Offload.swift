import Foundation

/// Where blocking work runs: database queries, fsync and file reads, C libraries and renderer
/// calls never hold one of the few threads of Swift's cooperative pool. Each kind of work has a
/// lane of threads of its own, so work waiting on a busy resource cannot take the threads another
/// needs: a database held by another client stalls writes, not reads; renders that run to their
/// deadline stall neither. At most a lane's width of calls run at once; callers beyond wait,
/// suspended, holding no thread.
public final class Offload: Sendable {
    package enum Lane: Int, Sendable, CaseIterable {
        /// Documents, statistics, stored previews and originals.
        case reads
        /// Uploads' validation, fsync and rows; the queue's calls.
        case writes
        /// A C library or a renderer child, up to the job's deadline.
        case renders
        /// Password hashes, slow on purpose: a guesser's flood waits here, not in front of reads.
        case hashes
        /// Renders of background work (``WorkPriority/background``): given a width of its own, they
        /// never take a thread from the renders a person waits for. Its threads keep ordinary priority: a thread of this
        /// process at a lower priority would pass it on to every thread it happens to start (Dispatch
        /// starts the cooperative pool's from whichever thread enqueues), and requests would then run on them.
        case background
    }

    private let lanes: [BlockingExecutor]

    /// - Parameter background: the background lane's width; nil: background renders share the
    ///   renders lane (a process that runs no jobs starts no threads for them).
    public init(reads: Int, writes: Int, renders: Int, hashes: Int = 1, background: Int? = nil) {
        let rendersLane = BlockingExecutor(width: renders)
        lanes = [
            BlockingExecutor(width: reads), BlockingExecutor(width: writes), rendersLane, BlockingExecutor(width: hashes),
            background.map(BlockingExecutor.init(width:)) ?? rendersLane
        ]
    }

    /// Runs `work` on a thread of `lane` and returns its result.
    package func run<T: Sendable>(_ lane: Lane, _ work: sending @escaping () throws -> T) async throws -> T {
        try await lanes[lane.rawValue].run(work)
    }

    /// Runs `work`, which fails only with a ``PreviewError``, on a thread of the renders lane, or of
    /// the background lane when the task's ``WorkPriority/current`` is background.
    package func render<T: Sendable>(_ work: @escaping @Sendable () throws(PreviewError) -> T) async throws(PreviewError) -> T {
        let result: Result<T, PreviewError>
        let lane = WorkPriority.current == .background ? Lane.background : .renders
        do {
            result = try await lanes[lane.rawValue].run { () -> Result<T, PreviewError> in
                do throws(PreviewError) {
                    return .success(try work())
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            result = .failure(PreviewError(.internal, "The render could not be scheduled.", detail: "\(error)"))
        }
        return try result.get()
    }
}
