internal import CProcessControl
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
    private var child: Child? {
        didSet { childPID.store(child?.pid ?? 0, ordering: .relaxed) }
    }
    /// The child's process id (0: none), for readers that do not hold the slot.
    private let childPID = Atomic<pid_t>(0)

    init(executable: URL, arguments: [String], inbox: URL? = nil, environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.inbox = inbox
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
        do throws(RenderChannel.Failure) {
            try RenderChannel.write(call, to: child.input)
            var reply = try RenderChannel.read(RenderReply.self, from: child.output, limit: RenderChannel.maxMessage, deadline: deadline)
            // An encoding call tells how far it has come before it answers.
            while call.operation.encodes, let fraction = reply.progress, reply.rendition == nil, reply.ladder == nil, reply.failure == nil {
                guard (0...1).contains(fraction) else { throw .malformed }
                progress(fraction)
                reply = try RenderChannel.read(RenderReply.self, from: child.output, limit: RenderChannel.maxMessage, deadline: deadline)
            }
            // A conversion asked for its first page sends it first, at most once.
            if call.operation == .convert, call.request != nil, reply.firstPage == true, reply.failure == nil {
                let image = try RenderChannel.read(from: child.output, limit: RenderChannel.maxImage, deadline: deadline)
                guard reply.isPlausibleImage(for: call, bytes: image), let width = reply.width, let height = reply.height,
                    let format = reply.format
                else { throw .malformed }
                firstPage(RenderedImage(bytes: image, format: format, width: width, height: height, facts: reply.facts ?? MediaFacts()))
                reply = try RenderChannel.read(RenderReply.self, from: child.output, limit: RenderChannel.maxMessage, deadline: deadline)
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

/// A running `render-child` with its two pipe ends, reaped by `kill()`.
final class Child {
    let pid: pid_t
    let input: Int32
    let output: Int32

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        let variables = Self.environment(ProcessInfo.processInfo.environment).merging(environment) { _, own in own }.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        var input: Int32 = -1
        var output: Int32 = -1
        let result = CStrings.with([executable.path] + arguments) { argv in
            CStrings.with(variables) { envp in docpreview_spawn_piped(executable.path, argv, envp, &pid, &input, &output) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// What a child may know of its parent's environment: locale, temporary folder, the libraries'
    /// own settings, sanitizer options and test hooks. Never tokens, database addresses or anything
    /// else a deployment keeps there.
    static func environment(_ parent: [String: String]) -> [String: String] {
        let names: Set = [
            "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "DOCPREVIEW_LOG_LEVEL", RendererChild.testHooksVariable,
            "ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"
        ]
        var environment = parent.filter { names.contains($0.key) || $0.key.hasPrefix("VIPS") || $0.key.hasPrefix("DOCPREVIEW_VIPS") }
        environment["PATH"] = "/usr/bin:/bin"
        // No Swift backtrace in children: it takes seconds, and the crash is reported by signal anyway.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return environment
    }

    /// The status `waitpid` reaped while the child was checked on, if it has ended.
    private var reaped: Int32?

    /// False once the child has ended (reaped here, so ``kill()`` reports how).
    var isRunning: Bool {
        guard reaped == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        reaped = status
        return false
    }

    /// Whether the child is stopped (SIGSTOP, a debugger): from its state in /proc.
    var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return false }
        return ["T", "t"].contains(stat[afterName.upperBound...].prefix(1))
    }

    /// Kills the child, waits for it and closes the pipes: its exit code, or the signal it died of.
    @discardableResult
    func kill() -> (exitCode: Int32, signal: Int32?) {
        close(input)
        close(output)
        var status: Int32 = 0
        if let reaped {
            status = reaped
        } else {
            Glibc.kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        let signal = status & 0x7F
        // A child already dead of its own signal reports that one; else ours (SIGKILL) or an exit code.
        return signal == 0 ? ((status >> 8) & 0xFF, nil) : (0, signal)
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
