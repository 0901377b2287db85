internal import CProcessControl
import Foundation
import PreviewCore

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
        guard let state = statFields?.first else { return false }
        return state == "T" || state == "t"
    }

    /// The CPU time the child's threads have used, in clock ticks (`utime` + `stime` in /proc); nil
    /// when it cannot be read.
    var cpuTicks: Int? {
        // After the name: the state (field 3), …, utime (14) and stime (15).
        guard let fields = statFields, fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The fields of `/proc/PID/stat` after the command's name (which may hold spaces), the state
    /// first; nil when it cannot be read.
    private var statFields: [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return nil }
        return stat[afterName.upperBound...].split(separator: " ")
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
