import Foundation

/// Whom work is for: a person waiting on it (a request's preview, page, tile or highlight; an
/// upload's first thumbnail), or nobody yet (the queue's text and playback jobs). Background work
/// runs on an ``Offload`` lane and in renderer children of their own; the children run under
/// Linux's `SCHED_BATCH` at nice ``backgroundNice``: a weight of 110 against an ordinary thread's
/// 1,024, so an interactive render sharing a core with one keeps nine tenths of it, and a
/// `SCHED_BATCH` thread never preempts a waking one. Their disk reads fall to a lower best-effort
/// I/O level with the nice value.
///
/// A background child still gets a tenth of a core however busy the machine is, so its job ends.
/// `SCHED_IDLE` (a weight of 3), tried first, starved it instead: on a machine whose every core
/// other work kept busy (`scripts/test --under-load`), a 5-second clip's playback ran out its
/// 80-second deadline.
package enum WorkPriority: Sendable {
    case interactive
    case background

    /// The priority of what the current task does: interactive unless a caller said otherwise (the
    /// queue worker, for text and playback jobs). ``Offload/render(_:)`` and the renderer children
    /// follow it.
    @TaskLocal package static var current = WorkPriority.interactive

    /// Linux's `SCHED_BATCH` (Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc module lacks).
    static let batchPolicy: Int32 = 3

    /// The nice value of a background child's threads (a scheduling weight of 110).
    static let backgroundNice: Int32 = 10

    /// Puts every thread of this process under `SCHED_BATCH` at nice ``backgroundNice`` (a
    /// background renderer child's, before it takes its first call); threads started later inherit
    /// both. There is no way back without privilege: only a process kept for background work calls
    /// it. Returns whether the kernel agreed for all.
    @discardableResult
    package static func lowerProcess() -> Bool {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var parameters = sched_param(sched_priority: 0)
        // The calling thread is among them.
        var lowered = !threads.isEmpty
        for thread in threads.compactMap({ pid_t($0) }) {
            // A thread that ended meanwhile needs nothing. Linux keeps a nice value per thread.
            let batched = sched_setscheduler(thread, batchPolicy, &parameters) == 0 || errno == ESRCH
            let niced = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), backgroundNice) == 0 || errno == ESRCH
            lowered = batched && niced && lowered
        }
        return lowered
    }

    /// Whether thread or process `id` (0: the calling thread) runs as background work: under
    /// `SCHED_BATCH` at nice ``backgroundNice``.
    package static func isLowered(_ id: pid_t = 0) -> Bool {
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(id))
        return sched_getscheduler(id) == batchPolicy && nice == backgroundNice && errno == 0
    }
}
