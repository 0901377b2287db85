import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewPipeline
import PreviewRenderers

/// `docpreview fetch-child`: the process a download runs in (an order on stdin, the reply on
/// stdout). Not for people.
struct FetchChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch-child", shouldDisplay: false)

    func run() throws {
        throw ExitCode(FetchChild.run())
    }
}

/// How `serve` and `worker` download shared links (`POST /api/v1/download`).
struct FetchOptions: ParsableArguments {
    @Option(help: "Links downloaded at once in this process, each in a child of its own (0: none here).")
    var fetchWorkers = 1

    @Option(help: ArgumentHelp("""
        Let downloads connect to this address, and port if given, although it is not on the public Internet \
        (repeatable): a media host on a private network, a test site on loopback. Every other private, loopback, \
        link-local, multicast, CGNAT or cloud-metadata address is refused, after every redirect and DNS answer.
        """, valueName: "address[:port]"))
    var allowPrivateFetch: [String] = []

    @Option(help: ArgumentHelp("The yt-dlp program that resolves TikTok and Instagram links (default: $DOCPREVIEW_YT_DLP, else yt-dlp on the PATH).",
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

/// `docpreview tokens add --device NAME [--owner O] | list | revoke NAME`: the tokens phones send links with.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Add, list or revoke the tokens devices send links with (POST /api/v1/download).",
        discussion: """
            A device token opens the download routes (/api/v1/) and nothing else; revoking it takes effect at once, \
            without changing the service token. add prints the token once: only its SHA-256 is kept.
            """)

    @Argument(help: "add, list or revoke.")
    var action: String

    @Argument(help: "revoke: the device's name.")
    var name: String?

    @Option(help: "add: the device's name (e.g. \"Ana's iPhone\").")
    var device: String?

    @Option(help: "add: who the device's downloads belong to (default: its name).")
    var owner: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        switch action {
        case "add": if device == nil { throw ValidationError("add needs --device NAME.") }
        case "revoke": if name == nil { throw ValidationError("revoke needs the device's name.") }
        case "list": break
        default: throw ValidationError("Use add --device NAME, list, or revoke NAME.")
        }
    }

    struct Added: Encodable {
        var device: String
        var owner: String
        var token: String
    }

    func run() throws {
        let backend = try storeOptions.backend()
        let documents = DocumentService(pipeline: DocumentPipeline(store: backend.store, configuration: Configuration(), logger: .cli),
                                        queue: backend.queue, downloads: backend.downloads)
        let report = CommandReport(json: json)
        switch action {
        case "add":
            let (record, token) = try documents.addDevice(name: device!, owner: owner)
            try report.succeed(Added(device: record.name, owner: record.owner, token: token),
                               human: "\(token)\n(the token of \(record.name), whose links become \(record.owner)'s documents; shown once)")
        case "revoke":
            guard try documents.revokeDevice(name: name!) else { throw PreviewError(.notFound, "No live device named \(name!).") }
            try report.succeed(["revoked": name!], human: "revoked \(name!)")
        default:
            let devices = try documents.devices()
            let lines = devices.map { "\($0.name)\t\($0.owner)\t\($0.revokedAt == nil ? "live" : "revoked")" }
            try report.succeed(devices, human: lines.isEmpty ? "no devices" : lines.joined(separator: "\n"))
        }
    }
}
