import CProcessControl
import Foundation
import PreviewCore

/// Fetches a shared link, or a link's card, in a child process of its own (`<executable>
/// fetch-child`, see ``FetchChild``), one per fetch: whatever a site or `yt-dlp` does costs that child only. The
/// child answers within the time limit or is killed a little after it. Blocking: run it on an
/// offload lane.
package struct LinkFetcher: Sendable {
    /// The `docpreview` binary.
    package let executable: URL
    /// The `yt-dlp` program, or nil.
    package let extractor: String?
    package let policy: FetchAddressPolicy

    package init(executable: URL, extractor: String?, policy: FetchAddressPolicy) {
        self.executable = executable
        self.extractor = extractor
        self.policy = policy
    }

    /// Seconds the parent waits past the child's own time limit before it kills it.
    static let grace: Double = 10

    /// Fetches `link` into `workspace` (created, and the child's only writable folder): the reply
    /// names the file and a title, or the failure and whether it is worth retrying.
    package func fetch(_ link: DownloadLink, into workspace: URL, maxBytes: Int, seconds: Double) -> FetchReply {
        run(
            FetchOrder(
                url: link.normalized, route: link.route, workspace: workspace.path, maxBytes: maxBytes, seconds: seconds,
                policy: policy, extractor: extractor))
    }

    /// Makes the card of `link` in `workspace` (created, and the child's only writable folder), as
    /// `settings` bound it: the reply has the card, the paths of its picture and of a linked file,
    /// or the failure.
    package func card(of link: WebLink, settings: LinkPreviewSettings, into workspace: URL) -> FetchReply {
        let site = settings.site(of: link.host)
        let card = CardOrder(
            site: site, oEmbed: settings.oEmbed(of: site, for: link.url), embedData: settings.embedData(of: site),
            maxPageBytes: settings.maxPageBytes,
            maxPictureBytes: settings.maxPictureBytes)
        return run(
            FetchOrder(
                url: link.normalized, route: .direct, workspace: workspace.path, maxBytes: settings.maxFileBytes, seconds: settings.fetchSeconds,
                policy: policy, extractor: extractor, card: card))
    }

    private func run(_ order: FetchOrder) -> FetchReply {
        let (workspace, seconds) = (URL(fileURLWithPath: order.workspace), order.seconds)
        do {
            try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        } catch {
            return .failure(.transient(.storageFull, "The fetch's workspace could not be made (\(error))."))
        }
        let environment =
            ["PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=\(workspace.path)", "TMPDIR=\(workspace.path)", "SWIFT_BACKTRACE=enable=no"]
            + ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }.map { "\($0.key)=\($0.value)" }
        var (pid, input, output): (pid_t, Int32, Int32) = (0, -1, -1)
        let started = CStrings.with([executable.path, "fetch-child"]) { argv in
            CStrings.with(environment) { envp in docpreview_spawn_piped(executable.path, argv, envp, &pid, &input, &output) }
        }
        guard started == 0 else {
            return .failure(.transient(.internal, "The fetch child could not be started (\(String(cString: strerror(started))))."))
        }
        defer { close(output) }
        let orderBytes = [UInt8]((try? JSONEncoder().encode(order)) ?? Data())
        _ = orderBytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        close(input)
        let answer = ChildOutput.read(output, within: seconds + Self.grace, limit: 64 * 1024)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard let line = answer, let reply = try? JSONDecoder().decode(FetchReply.self, from: line) else {
            return .failure(.transient(.timeout, "The fetch took longer than \(Int(seconds)) s and was stopped."))
        }
        return reply
    }
}
