import CProcessControl
import Foundation
import PreviewCore

/// The child side of ``LinkFetcher``: `docpreview fetch-child` reads one ``FetchOrder`` on stdin,
/// fetches it (a download, or a link's card: ``CardFetch``) and writes one ``FetchReply`` line on stdout.
///
/// Before anything else it confines itself: files (Landlock) to reading the system and the
/// libraries it loaded and writing its workspace; files it writes to the size limit
/// (`RLIMIT_FSIZE`); its whole run to the time limit (an alarm that answers `timeout` and exits,
/// taking `yt-dlp` with it). Its connections all go through its ``AddressCheckingProxy``.
package enum FetchChild {
    private static let answered = Locked(false)

    package static func run() -> Int32 {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        guard let order = try? JSONDecoder().decode(FetchOrder.self, from: input) else {
            return answer(.failure(.permanent(.internal, "The fetch child was sent a malformed order.")))
        }
        let timeout = FetchReply.failure(.transient(.timeout, "The download took longer than \(Int(order.seconds)) s."))
        let line = (String(decoding: (try? JSONEncoder().encode(timeout)) ?? Data(), as: UTF8.self) + "\n")
        _ = docpreview_watchdog_arm(order.seconds, line, STDOUT_FILENO, 0)
        if let problem = confine(order) {
            return answer(.failure(.transient(.internal, "The fetch child could not confine itself (\(problem)).")))
        }
        let proxy: AddressCheckingProxy
        // A link that leads to a refused address is refused whatever else it might lead to: the
        // answer goes at once (clients retry a refused connection until their deadline).
        let refusals = ProxyRefusals { refusal in
            _ = answer(.failure(.privateAddress(refusal)))
            _exit(0)
        }
        do {
            proxy = try AddressCheckingProxy(policy: order.policy, onRefusal: refusals.refused)
        } catch {
            return answer(.failure(.transient(.internal, "The fetch child could not start its proxy (\(error)).")))
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        do throws(FetchFailure) {
            if let card = order.card {
                let direct = DirectFetch(order: order, proxyPort: proxy.port, refusals: refusals)
                let extractor = ExtractorFetch(order: order, proxyPort: proxy.port, executable: executable)
                return answer(try CardFetch(order: order, card: card, direct: direct, extractor: extractor, refusals: refusals).run())
            }
            let (file, title) = try fetch(order, proxy: proxy, executable: executable)
            return answer(.success(file: file.path, title: title))
        } catch {
            return answer(.failure(error))
        }
    }

    private static func fetch(_ order: FetchOrder, proxy: AddressCheckingProxy, executable: String) throws(FetchFailure) -> (URL, String) {
        let extractor = ExtractorFetch(order: order, proxyPort: proxy.port, executable: executable)
        if order.route == .extractor { return try extractor.run() }
        switch try DirectFetch(order: order, proxyPort: proxy.port).run() {
        case let .file(file, title): return (file, title)
        case .page: return try extractor.run()
        }
    }

    /// Landlock and the size limit; nil, or what failed. Where the kernel has no Landlock the fetch
    /// goes on without it (as renderer children do), the proxy still checking every address.
    private static func confine(_ order: FetchOrder) -> String? {
        signal(SIGXFSZ, SIG_IGN)
        var size = rlimit(rlim_cur: rlim_t(order.maxBytes + 1024 * 1024), rlim_max: rlim_t(order.maxBytes + 1024 * 1024))
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &size) == 0 else { return "RLIMIT_FSIZE: \(String(cString: strerror(errno)))" }
        // Of /proc, this process's own folder only: other processes' command lines and environments
        // stay closed. (Nothing here starts libdispatch's workers, whose monitor reads /proc/TID/stat.)
        var readable =
            ["/usr", "/etc", "/lib", "/lib64", "/bin", "/proc/self", "/dev/urandom", "/dev/random", "/sys/devices/system/cpu"]
            + loadedLibraryFolders()
        if let extractor = order.extractor { readable += toolFolders(extractor) }
        // Under a sanitizer, the suppression files its options name are read at exit.
        readable += ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }.values.flatMap { options in
            options.split(separator: ":").filter { $0.hasPrefix("suppressions=") }.map { String($0.dropFirst("suppressions=".count)) }
        }
        let writable = [order.workspace, "/dev/null"]
        let result = CStrings.with(readable) { readablePaths in
            CStrings.with(writable) { writablePaths in
                docpreview_restrict_files(
                    readablePaths.map { UnsafePointer($0) }, Int32(readable.count),
                    writablePaths.map { UnsafePointer($0) }, Int32(writable.count))
            }
        }
        return result == 0 || result == ENOSYS || result == EOPNOTSUPP ? nil : "Landlock: \(String(cString: strerror(result)))"
    }

    /// The installation folders of `tool` and of its script's interpreter (a virtual environment's
    /// root, a Python's prefix): the folder above the one each sits in, symbolic links followed.
    private static func toolFolders(_ tool: String) -> [String] {
        var programs = [tool]
        if let handle = FileHandle(forReadingAtPath: tool), let head = try? handle.read(upToCount: 256), head.starts(with: Array("#!".utf8)) {
            let line = String(decoding: head.dropFirst(2).prefix { $0 != 10 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if let interpreter = line.split(separator: " ").first { programs.append(String(interpreter)) }
        }
        return programs.flatMap { program in
            [URL(fileURLWithPath: program), URL(fileURLWithPath: program).resolvingSymlinksInPath()]
                .map { $0.deletingLastPathComponent().deletingLastPathComponent().path }
        }
    }

    /// The folders of this program and of every shared library loaded (the Swift runtime's, the
    /// sanitizers'): what `fetch-exec`, the same program, loads again before it becomes the tool.
    private static func loadedLibraryFolders() -> [String] {
        var folders: Set<String> = [
            URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
                .deletingLastPathComponent().path
        ]
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        if docpreview_loaded_objects(&buffer, buffer.count) < buffer.count {
            let list = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            for path in list.split(separator: "\n") { folders.insert(URL(fileURLWithPath: String(path)).deletingLastPathComponent().path) }
        }
        return folders.sorted()
    }

    /// Writes the one reply: the first caller's (refusals on the proxy's threads race each other and
    /// the main thread), whole before any other caller returns to exit.
    private static func answer(_ reply: FetchReply) -> Int32 {
        answered.withLock { done in
            guard !done else { return }
            done = true
            docpreview_watchdog_disarm()
            FileHandle.standardOutput.write(((try? JSONEncoder().encode(reply)) ?? Data()) + Data("\n".utf8))
        }
        return 0
    }
}
