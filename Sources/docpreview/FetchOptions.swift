import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewRenderers

/// How `serve` and `worker` download shared links (`POST /api/v1/download`).
struct FetchOptions: ParsableArguments {
    @Option(help: "Links downloaded at once in this process, each in a child of its own (0: none here).")
    var fetchWorkers = 1

    @Option(
        help: ArgumentHelp(
            """
            Let downloads connect to this address, and port if given, although it is not on the public Internet \
            (repeatable): a media host on a private network, a test site on loopback. Every other private, loopback, \
            link-local, multicast, CGNAT or cloud-metadata address is refused, after every redirect and DNS answer.
            """, valueName: "address[:port]"))
    var allowPrivateFetch: [String] = []

    @Option(
        help: ArgumentHelp(
            "The yt-dlp program that resolves TikTok and Instagram links (default: $DOCPREVIEW_YT_DLP, else yt-dlp on the PATH).",
            valueName: "path"))
    var ytDlp: String?

    func validate() throws {
        try OptionRange.check("--fetch-workers", fetchWorkers, 0...64)
        for text in allowPrivateFetch where FetchAddressPolicy.Exception(text) == nil {
            throw ValidationError("--allow-private-fetch takes an IP address with an optional port (127.0.0.1:8080, [::1]:8080), not \(text).")
        }
    }

    /// The service that downloads queued links, or nil with `--fetch-workers 0`.
    func worker(documents: DocumentService, logger: Logger) -> DownloadWorker? {
        guard fetchWorkers > 0 else { return nil }
        let policy = FetchAddressPolicy(exceptions: allowPrivateFetch.compactMap(FetchAddressPolicy.Exception.init))
        let fetcher = LinkFetcher(executable: RendererPool.currentExecutable, extractor: extractor, policy: policy)
        return DownloadWorker(documents: documents, fetcher: fetcher, concurrency: fetchWorkers, logger: logger)
    }

    /// `--yt-dlp`, else `$DOCPREVIEW_YT_DLP`, else the first `yt-dlp` on the PATH.
    var extractor: String? {
        if let ytDlp { return ytDlp }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["DOCPREVIEW_YT_DLP"], !path.isEmpty { return path }
        return (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/yt-dlp" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
