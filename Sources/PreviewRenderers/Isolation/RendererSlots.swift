import Foundation
import PreviewCore
import Synchronization

/// Children of one kind and the calls waiting for them: a call waits until one of them is free
/// (more calls than children may be in flight: a batch keeps files moving through the store while
/// every child renders), suspended in order of arrival, holding no thread; then it takes the one its
/// file's path hashes to when that one is free (so a PDF's next page finds its document open), else
/// any free one.
final class SlotGroup: Sendable {
    let slots: [Slot]
    private let free: AsyncGate

    init(_ slots: [Slot]) {
        self.slots = slots
        free = AsyncGate(width: slots.count)
    }

    /// Runs `work` with a free slot on `offload`'s renders lane. The slot goes back when `work` ends:
    /// a caller cancelled meanwhile stops waiting at once, but a slot whose child is at work on its
    /// call is never given to another.
    func run<T: Sendable>(
        for path: String, on offload: Offload,
        _ work: @escaping @Sendable (Slot) throws(PreviewError) -> T
    ) async throws(PreviewError) -> T {
        let slot: Slot
        do {
            slot = try await take(for: path)
        } catch {
            throw PreviewError(.internal, "The call was cancelled while it waited for a renderer.", detail: "\(error)")
        }
        // Whoever moves the loan on from `.lent` gives the slot back: `work` when it began, else the caller.
        let loan = Locked(Loan.lent)
        defer { if loan.moveOn(to: .abandoned) { giveBack(slot) } }
        return try await offload.render { () throws(PreviewError) in
            guard loan.moveOn(to: .working) else { throw PreviewError(.internal, "The call was cancelled before it reached a renderer.") }
            defer { self.giveBack(slot) }
            return try work(slot)
        }
    }

    fileprivate enum Loan { case lent, working, abandoned }

    /// Waits for a free slot, suspended, and takes it. Throws only when the task is cancelled while it waits.
    private func take(for path: String) async throws -> Slot {
        try await free.enter()
        var hasher = Hasher()
        hasher.combine(path)
        let home = slots[Int(UInt(bitPattern: hasher.finalize()) % UInt(slots.count))]
        if home.take() { return home }
        // Each holder of a slot holds one of `free`'s places: with one, some slot is free.
        while true {
            for slot in slots where slot.take() { return slot }
        }
    }

    private func giveBack(_ slot: Slot) {
        slot.giveBack()
        free.leave()
    }
}

/// One child process, given to one call at a time.
final class Slot: @unchecked Sendable {  // `child` is only touched by the call that took the slot
    /// Whether a call holds the slot. A flag, not a lock: a call takes the slot on one thread and
    /// gives it back on another.
    private let taken = Atomic<Bool>(false)
    private let executable: URL
    private let arguments: [String]
    private let environment: [String: String]
    /// Where files for an office child go (its workspace's inbox); nil for other children.
    let inbox: URL?
    /// Whether the child runs as background work (``WorkPriority``): a call's deadline is then
    /// extended while the child keeps working (``exchange(_:deadline:progress:firstPage:)``).
    let background: Bool
    private var child: Child? {
        didSet { childPID.store(child?.pid ?? 0, ordering: .relaxed) }
    }
    /// The child's process id (0: none), for readers that do not hold the slot.
    private let childPID = Atomic<pid_t>(0)
    /// How many times a call's deadline was extended on this slot (``exchange(_:deadline:progress:firstPage:)``).
    let extensions = Atomic<Int>(0)

    init(executable: URL, arguments: [String], inbox: URL? = nil, background: Bool = false, environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.inbox = inbox
        self.background = background
        self.environment = environment
    }

    deinit { child?.kill() }

    /// The process id of the slot's child, if it has one (one being replaced at that moment may be missed).
    var runningPID: pid_t? {
        let pid = childPID.load(ordering: .relaxed)
        return pid == 0 ? nil : pid
    }

    /// Takes the slot if it is free.
    func take() -> Bool {
        taken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    func giveBack() {
        taken.store(false, ordering: .releasing)
    }

    /// The most times a background child's deadline is extended (``exchange(_:deadline:progress:firstPage:)``).
    static let backgroundExtensions = 20

    /// What extends a background call's deadline by `interval`: while `child` used CPU time since
    /// the last deadline, at most ``backgroundExtensions`` times, each counted in ``extensions``;
    /// nil when it ends the call.
    private func patience(with child: Child, extendingBy interval: Duration) -> () -> ContinuousClock.Instant? {
        var (used, left) = (child.cpuTicks, Self.backgroundExtensions)
        return {
            let now = child.cpuTicks
            guard left > 0, let before = used, let now, now > before else { return nil }
            (used, left) = (now, left - 1)
            self.extensions.add(1, ordering: .relaxed)
            return ContinuousClock.now + interval
        }
    }

    enum Outcome {
        case answered(RenderReply, [UInt8]?)
        case timedOut
        case crashed(signal: Int32)
        case failed(String)
    }

    /// Sends `call` and waits for the answer until `deadline`, handing what comes before it to
    /// `progress` (an encoding's) and `firstPage` (an office conversion's); only by the call that
    /// took the slot. A child that died while idle is replaced first, so its death is never blamed
    /// on this call; one found stopped at the deadline counts as dead (`SIGSTOP`), not as a file
    /// that took too long.
    ///
    /// A background child on a busy machine gets a tenth of a core, so its call may take many times
    /// what it would take alone: at its deadline it is given the same time again, as long as it used
    /// CPU time since the last deadline, at most ``backgroundExtensions`` times. A child that does
    /// nothing (hung) is still ended at its first deadline, and its CPU time stays bounded by its
    /// own limit (`RLIMIT_CPU`).
    func exchange(
        _ call: RenderCall, deadline: ContinuousClock.Instant, progress: (Double) -> Void,
        firstPage: (RenderedImage) -> Void
    ) -> Outcome {
        if let idle = child, !idle.isRunning {
            idle.kill()
            child = nil
        }
        let child: Child
        do {
            child = try self.child ?? Child(executable: executable, arguments: arguments, environment: environment)
        } catch {
            return .failed("the renderer could not start: \(error)")
        }
        self.child = child
        let interval = ContinuousClock.now.duration(to: deadline)
        let deadline = RenderChannel.Deadline(deadline, extend: background ? patience(with: child, extendingBy: interval) : { nil })
        func nextReply() throws(RenderChannel.Failure) -> RenderReply {
            try RenderChannel.read(RenderReply.self, from: child.output, limit: RenderChannel.maxMessage, deadline: deadline)
        }
        do throws(RenderChannel.Failure) {
            try RenderChannel.write(call, to: child.input)
            var reply = try nextReply()
            // An encoding call tells how far it has come before it answers.
            while call.operation.encodes, let fraction = reply.progress, reply.rendition == nil, reply.ladder == nil, reply.failure == nil {
                guard (0...1).contains(fraction) else { throw .malformed }
                progress(fraction)
                reply = try nextReply()
            }
            // A conversion asked for its first page sends it first, at most once.
            if call.operation == .convert, call.request != nil, reply.firstPage == true, reply.failure == nil {
                let image = try RenderChannel.read(from: child.output, limit: RenderChannel.maxImage, deadline: deadline)
                guard reply.isPlausibleImage(for: call, bytes: image), let width = reply.width, let height = reply.height,
                    let format = reply.format
                else { throw .malformed }
                firstPage(RenderedImage(bytes: image, format: format, width: width, height: height, facts: reply.facts ?? MediaFacts()))
                reply = try nextReply()
            }
            let bytes =
                reply.failure == nil && call.operation.sendsBytes
                ? try RenderChannel.read(
                    from: child.output, limit: call.operation == .convert ? RenderChannel.maxPivot : RenderChannel.maxImage,
                    deadline: deadline) : nil
            // The child is not trusted: an answer that cannot be right ends it like a malformed one.
            guard reply.isPlausible(for: call, bytes: bytes) else { throw .malformed }
            if reply.retire == true {
                child.kill()
                self.child = nil
            }
            return .answered(reply, bytes)
        } catch {
            self.child = nil
            switch error {
            case .timedOut:
                let stopped = child.isStopped
                child.kill()
                return stopped ? .crashed(signal: SIGSTOP) : .timedOut
            case .closed:
                let status = child.kill()
                if let signal = status.signal { return .crashed(signal: signal) }
                return .failed("the renderer exited with status \(status.exitCode)")
            case .malformed:
                child.kill()
                return .failed("the renderer sent a malformed or oversized answer; it was stopped")
            }
        }
    }
}

private extension Locked<SlotGroup.Loan> {
    /// Moves a loan still `.lent` to `next`; false when it had already moved on.
    func moveOn(to next: SlotGroup.Loan) -> Bool {
        withLock { loan in
            guard loan == .lent else { return false }
            loan = next
            return true
        }
    }
}
