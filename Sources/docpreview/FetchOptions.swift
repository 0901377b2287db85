import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewRenderers

/// How `serve` and `worker` download shared links (`POST /api/v1/download`), and how `serve`
/// makes links' cards.
struct FetchOptions: ParsableArguments {
    @Option(help: "Links downloaded at once in this process, each in a child of its own (0: none here).")
    var fetchWorkers = 1

    @OptionGroup var addresses: FetchAddressOptions

    func validate() throws {
        try OptionRange.check("--fetch-workers", fetchWorkers, 0...64)
    }

    /// The service that downloads queued links, or nil with `--fetch-workers 0`.
    func worker(documents: DocumentService, logger: Logger) -> DownloadWorker? {
        guard fetchWorkers > 0 else { return nil }
        return DownloadWorker(documents: documents, fetcher: addresses.fetcher, concurrency: fetchWorkers, logger: logger)
    }

    /// Links' cards, made by fetch children as downloads are, under the same address rules.
    func linkPreviews(documents: DocumentService, logger: Logger) -> LinkPreviews {
        LinkPreviews(documents: documents, fetcher: addresses.fetcher, logger: logger)
    }
}

/// Where fetch children may connect and which `yt-dlp` they run (downloads and links' cards).
struct FetchAddressOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            """
            Let downloads and links' cards connect to this address, and port if given, although it is not on the public Internet \
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
        for text in allowPrivateFetch where FetchAddressPolicy.Exception(text) == nil {
            throw ValidationError("--allow-private-fetch takes an IP address with an optional port (127.0.0.1:8080, [::1]:8080), not \(text).")
        }
    }

    /// Fetch children of this program, under the address rules `--allow-private-fetch` relaxes.
    var fetcher: LinkFetcher {
        let policy = FetchAddressPolicy(exceptions: allowPrivateFetch.compactMap(FetchAddressPolicy.Exception.init))
        return LinkFetcher(executable: RendererPool.currentExecutable, extractor: extractor, policy: policy)
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
