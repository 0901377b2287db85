import Foundation

/// Whom work is for: a person waiting on it (a request's preview, page, tile or highlight; an
/// upload's first thumbnail), or nobody yet (the queue's text and playback jobs). Background work
/// runs on an ``Offload`` lane and in renderer children of its own; the children run under Linux's
/// `SCHED_IDLE`: they take only the CPU time nothing interactive wants, yet are never starved
/// outright (a weight of 3 against an ordinary thread's 1,024), and their disk reads fall to the
/// idle I/O class with it.
package enum WorkPriority: Sendable {
    case interactive
    case background

    /// The priority of what the current task does: interactive unless a caller said otherwise (the
    /// queue worker, for text and playback jobs). ``Offload/render(_:)`` and the renderer children
    /// follow it.
    @TaskLocal package static var current = WorkPriority.interactive

    /// Linux's `SCHED_IDLE` (Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc module lacks).
    static let idlePolicy: Int32 = 5

    /// Puts every thread of this process under `SCHED_IDLE` (a background renderer child's, before
    /// it takes its first call); threads started later inherit it. There is no way back without
    /// privilege: only a process kept for background work calls it. Returns whether the kernel agreed for all.
    @discardableResult
    package static func lowerProcess() -> Bool {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var parameters = sched_param(sched_priority: 0)
        // The calling thread is among them.
        var lowered = !threads.isEmpty
        for thread in threads.compactMap({ pid_t($0) }) {
            // A thread that ended meanwhile needs nothing.
            lowered = (sched_setscheduler(thread, idlePolicy, &parameters) == 0 || errno == ESRCH) && lowered
        }
        return lowered
    }

    /// Whether thread or process `id` (0: the calling thread) runs under `SCHED_IDLE`.
    package static func isLowered(_ id: pid_t = 0) -> Bool {
        sched_getscheduler(id) == idlePolicy
    }
}
