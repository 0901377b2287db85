import CProcessControl
import Foundation
import PreviewCore

/// A link resolved by `yt-dlp` (a social site's page, or a page with a `<video>` through its generic
/// extractor), run as `docpreview fetch-exec PORT -- yt-dlp …`: its TCP confined to the proxy's port
/// (Landlock), its files to what the fetch child may touch, dead with the child, every request
/// through the ``AddressCheckingProxy``. One video, the best single file (no merging of separate
/// audio and video: that would need the ffmpeg program), at most the size limit.
struct ExtractorFetch {
    let order: FetchOrder
    let proxyPort: Int
    /// The `docpreview` binary (for `fetch-exec`).
    let executable: String

    func run() throws(FetchFailure) -> (file: URL, title: String) {
        let workspace = URL(fileURLWithPath: order.workspace)
        let lines = try runTool(
            [
                "--format", "b[ext=mp4]/b[ext=mov]/b", "--max-filesize", String(order.maxBytes), "--fixup", "never",
                "--ffmpeg-location", workspace.appendingPathComponent("no-ffmpeg").path, "--restrict-filenames",
                "--paths", workspace.path, "--output", "download.%(ext)s",
                "--print", "before_dl:title:%(title).200s", "--print", "after_move:file:%(filepath)s"
            ], seconds: order.seconds)
        let title = lines.last { $0.hasPrefix("title:") }.map { String($0.dropFirst(6)) }
        if let file = lines.last(where: { $0.hasPrefix("file:") }).map({ URL(fileURLWithPath: String($0.dropFirst(5))) }),
            FileManager.default.fileExists(atPath: file.path)
        {
            return (file, title ?? DirectFetch.title(of: URL(string: order.url)))
        }
        throw Self.classify(lines, maxBytes: order.maxBytes)
    }

    /// What `yt-dlp` knows of the link without downloading it (its `--dump-json` object), within
    /// `seconds`, asking only `extractors` when named (`--use-extractors`).
    func info(seconds: Double, extractors: String?) throws(FetchFailure) -> [String: Any] {
        let lines = try runTool(["--skip-download", "--dump-json"] + (extractors.map { ["--use-extractors", $0] } ?? []), seconds: seconds)
        for line in lines.reversed() where line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return object }
        }
        throw Self.classify(lines, maxBytes: order.maxBytes)
    }

    /// Runs `yt-dlp` with `arguments` on the link and returns the lines it printed (a megabyte at
    /// most), or nothing once `seconds` have passed (it is killed then).
    private func runTool(_ arguments: [String], seconds: Double) throws(FetchFailure) -> [String] {
        guard let extractor = order.extractor, FileManager.default.isExecutableFile(atPath: extractor) else {
            throw .transient(.unavailable, "yt-dlp is not installed on the server (scripts/install-deps installs it).")
        }
        let workspace = URL(fileURLWithPath: order.workspace)
        let proxy = "http://127.0.0.1:\(proxyPort)"
        let arguments =
            [
                executable, "fetch-exec", String(proxyPort), "--", extractor,
                "--proxy", proxy, "--no-config", "--no-cache-dir", "--no-playlist", "--max-downloads", "1",
                "--socket-timeout", "30", "--no-progress", "--no-colors"
            ] + arguments + [order.url]
        let environment = [
            "PATH=/usr/bin:/bin", "HOME=\(workspace.path)", "TMPDIR=\(workspace.path)", "LANG=C.UTF-8",
            "http_proxy=\(proxy)", "https_proxy=\(proxy)", "HTTP_PROXY=\(proxy)", "HTTPS_PROXY=\(proxy)", "no_proxy=",
            "SWIFT_BACKTRACE=enable=no", "PYTHONDONTWRITEBYTECODE=1"
        ]
        var (pid, output): (pid_t, Int32) = (0, -1)
        let started = CStrings.with(arguments) { argv in
            CStrings.with(environment) { envp in docpreview_spawn_merged(executable, argv, envp, &pid, &output) }
        }
        guard started == 0 else { throw .transient(.internal, "yt-dlp could not be started (\(String(cString: strerror(started)))).") }
        // What yt-dlp prints past a megabyte is not read.
        let printed = ChildOutput.read(output, within: seconds, limit: 1 << 20)
        close(output)
        if printed == nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: printed ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// What yt-dlp's output says went wrong.
    static func classify(_ lines: [String], maxBytes: Int) -> FetchFailure {
        let errors = lines.filter { $0.hasPrefix("ERROR:") }
        let all = lines.joined(separator: "\n")
        let said = (errors.last ?? lines.last ?? "").replacingOccurrences(of: "ERROR: ", with: "").prefix(300)
        if all.contains("larger than max-filesize") || all.contains("File too large") || all.contains("Errno 27") { return .tooLarge(maxBytes) }
        if all.contains("Unsupported URL") || all.contains("No video formats found") || all.contains("no suitable InfoExtractor") {
            return .permanent(.noVideoStream, "There is no video at this link.")
        }
        if all.contains("Requested format is not available") {
            return .permanent(.noVideoStream, "The site offers this video only as separate audio and video streams, which are not downloaded.")
        }
        for status in [404, 410, 401, 403] where all.contains("HTTP Error \(status)") { return .status(status) }
        if all.contains("Private video") || all.contains("Video unavailable") || all.contains("This video is unavailable")
            || all.contains("login required") || all.contains("log in")
        {
            return .permanent(.linkFailed, "The video is private or no longer available (\(said)).")
        }
        for status in [429, 500, 502, 503, 504] where all.contains("HTTP Error \(status)") { return .status(status) }
        return .transient(.linkFailed, said.isEmpty ? "yt-dlp could not download the video." : "yt-dlp could not download the video: \(said)")
    }
}
