internal import CProcessControl
import Foundation
import Logging
import PreviewCore

/// Renders in long-lived child processes of the same binary (`<executable> render-child <limits>`),
/// one per slot, so that a crash, a hang or an out-of-memory in Poppler, FFmpeg or libvips costs
/// one job, never the process that runs the batch or the server. Each call has the job's deadline:
/// past it the child is killed and the call fails with `timeout`; a crash fails it with `corrupt`
/// (the signal in the message). A dead child is replaced on the next call. Calls about the same file
/// go to the same child when it is free, whose open-document cache then serves a PDF's next page.
public final class RendererPool: Sendable {
    private let slots: [Slot]
    private let limits: Limits
    private let logger: Logger

    /// - Parameters:
    ///   - executable: the `docpreview` binary (the current one: ``currentExecutable``).
    ///   - size: children, one per job that may run at once.
    public init(executable: URL, size: Int, limits: Limits, logger: Logger) {
        let arguments = ["render-child", String(decoding: (try? JSONEncoder().encode(limits)) ?? Data("{}".utf8), as: UTF8.self)]
        slots = (0..<max(1, size)).map { _ in Slot(executable: executable, arguments: arguments) }
        self.limits = limits
        self.logger = logger
        // A write to a child that just died must fail with EPIPE, not kill this process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// This process's own binary.
    public static var currentExecutable: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    }

    func probe(_ path: String, kind: FileKind) throws(PreviewError) -> MediaFacts {
        let (reply, _) = try call(RenderCall(operation: .probe, kind: kind, path: path, request: nil))
        return reply.facts ?? MediaFacts()
    }

    func render(_ path: String, kind: FileKind, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        let (reply, bytes) = try call(RenderCall(operation: .render, kind: kind, path: path, request: request))
        guard let bytes, let width = reply.width, let height = reply.height, let format = reply.format else {
            throw PreviewError(.internal, "The renderer sent an incomplete answer.")
        }
        return RenderedImage(bytes: bytes, format: format, width: width, height: height, facts: reply.facts ?? MediaFacts())
    }

    private func call(_ call: RenderCall) throws(PreviewError) -> (RenderReply, [UInt8]?) {
        let slot = choose(for: call)
        defer { slot.lock.unlock() }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(limits.jobSeconds * 1000)))
        let outcome = slot.exchange(call, deadline: deadline)
        switch outcome {
        case let .answered(reply, bytes):
            if let failure = reply.failure {
                throw PreviewError(PreviewError.Code(rawValue: failure.code) ?? .internal, failure.message, detail: failure.detail)
            }
            return (reply, bytes)
        case .timedOut:
            logger.warning("renderer child killed at the deadline", metadata: ["preview.file": "\(call.path)"])
            throw PreviewError(.timeout, "Processing took longer than \(Int(limits.jobSeconds)) seconds.")
        case let .crashed(signal):
            logger.error("renderer child crashed", metadata: ["preview.file": "\(call.path)", "preview.signal": "\(signal)"])
            throw PreviewError(.corrupt, "The file crashed the renderer (signal \(signal)); it is probably damaged.",
                               detail: "signal \(signal)")
        case let .failed(reason):
            logger.error("renderer child failed", metadata: ["preview.file": "\(call.path)", "preview.error": "\(reason)"])
            throw PreviewError(.internal, "The renderer could not process the file.", detail: reason)
        }
    }

    /// Locks and returns the slot for `call`: the one its path hashes to when free (so a PDF's next
    /// page finds its document open), else any free one (a busy child, perhaps stuck on a bomb until
    /// the deadline, holds up nobody else), else the hashed one when it frees up.
    private func choose(for call: RenderCall) -> Slot {
        var hasher = Hasher()
        hasher.combine(call.path)
        let home = slots[Int(UInt(bitPattern: hasher.finalize()) % UInt(slots.count))]
        if home.lock.try() { return home }
        for slot in slots where slot !== home && slot.lock.try() { return slot }
        home.lock.lock()
        return home
    }
}

/// One child process and the lock that gives it to one call at a time.
private final class Slot: @unchecked Sendable {  // `child` is only touched while `lock` is held
    let lock = NSLock()
    private let executable: URL
    private let arguments: [String]
    private var child: Child?

    init(executable: URL, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    deinit { child?.kill() }

    enum Outcome {
        case answered(RenderReply, [UInt8]?)
        case timedOut
        case crashed(signal: Int32)
        case failed(String)
    }

    /// Sends `call` and waits for the answer until `deadline`. Must hold `lock`.
    func exchange(_ call: RenderCall, deadline: ContinuousClock.Instant) -> Outcome {
        let child: Child
        do {
            child = try self.child ?? Child(executable: executable, arguments: arguments)
        } catch {
            return .failed("the renderer could not start: \(error)")
        }
        self.child = child
        do throws(RenderChannel.Failure) {
            try RenderChannel.write(call, to: child.input)
            let reply = try RenderChannel.read(RenderReply.self, from: child.output, limit: RenderChannel.maxMessage, deadline: deadline)
            let bytes = reply.failure == nil && call.operation == .render
                ? try RenderChannel.read(from: child.output, limit: RenderChannel.maxImage, deadline: deadline) : nil
            // The child is not trusted: an answer that cannot be right ends it like a malformed one.
            guard reply.isPlausible(for: call, bytes: bytes) else { throw .malformed }
            return .answered(reply, bytes)
        } catch {
            self.child = nil
            switch error {
            case .timedOut:
                child.kill()
                return .timedOut
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
private final class Child {
    let pid: pid_t
    let input: Int32
    let output: Int32

    init(executable: URL, arguments: [String]) throws {
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = Self.environment(ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        var input: Int32 = -1
        var output: Int32 = -1
        let result = docpreview_spawn_piped(executable.path, argv, envp, &pid, &input, &output)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
        self.input = input
        self.output = output
    }

    /// What a child may know of its parent's environment: locale, temporary folder, the libraries'
    /// own settings, sanitizer options and test hooks. Never tokens, database addresses or anything
    /// else a deployment keeps there.
    static func environment(_ parent: [String: String]) -> [String: String] {
        let names: Set = ["LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "DOCPREVIEW_LOG_LEVEL", RendererChild.testHooksVariable,
                          "ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"]
        var environment = parent.filter { names.contains($0.key) || $0.key.hasPrefix("VIPS") || $0.key.hasPrefix("DOCPREVIEW_VIPS") }
        environment["PATH"] = "/usr/bin:/bin"
        // No Swift backtrace in children: it takes seconds, and the crash is reported by signal anyway.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        return environment
    }

    /// Kills the child, waits for it and closes the pipes: its exit code, or the signal it died of.
    @discardableResult
    func kill() -> (exitCode: Int32, signal: Int32?) {
        close(input)
        close(output)
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        // A child already dead of its own signal reports that one; else ours (SIGKILL) or an exit code.
        return signal == 0 ? ((status >> 8) & 0xFF, nil) : (0, signal)
    }
}
