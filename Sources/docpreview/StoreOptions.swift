import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewComposition
import PreviewDocuments
import PreviewPipeline
import PreviewRenderers
import PreviewStore

/// `--store DIR`, else `$DOCPREVIEW_STORE`, else `./docpreview-store`; `--database postgres://…`,
/// else `$DOCPREVIEW_DATABASE`, else the SQLite index in the store folder.
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Store folder (default: $DOCPREVIEW_STORE, else ./docpreview-store).", valueName: "dir"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            """
            PostgreSQL for the index and the queue, shared by workers on many hosts: postgres://user:password@host:port/db \
            (default: $DOCPREVIEW_DATABASE, else index.sqlite in the store folder).
            """, valueName: "url"))
    var database: String?

    @Option(
        help: ArgumentHelp(
            """
            Where the blobs live: folder (objects/ in the store folder), or an S3 bucket, \
            s3://bucket/prefix?endpoint=https://host:port&region=…&style=path|virtual&ca=file.pem, shared by hosts that share --database (default: \
            $DOCPREVIEW_BLOBS, else folder). Credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, else the profile AWS_PROFILE of \
            AWS_SHARED_CREDENTIALS_FILE (default ~/.aws/credentials); never an option.
            """, valueName: "url"))
    var blobs: String?

    @Option(
        help: ArgumentHelp(
            "With S3 blobs: the local copies the renderers read, least recently used removed first beyond this size.",
            valueName: "size"))
    var blobCacheSize = "2GB"

    @Option(
        help: ArgumentHelp(
            "Read the PostgreSQL address from this file (its first line), so its password stays out of /proc/*/cmdline.",
            valueName: "path"))
    var databaseFile: String?

    /// The store and its queue, its blocking work on `offload`'s lanes, each database statement
    /// given `statementTimeout`.
    func backend(offload: Offload = .commandLine, statementTimeout: Duration = StoreBackend.statementTimeout) async throws -> StoreBackend {
        let location = Store.location(store)
        let database = StoreBackend.database(try databaseAddress())
        guard let cacheBytes = Limits.parseByteCount(blobCacheSize) else { throw ValidationError("--blob-cache-size takes a size, e.g. 2GB.") }
        let blobs: StoreBackend.Blobs
        do {
            blobs = try StoreBackend.Blobs(self.blobs ?? ProcessInfo.processInfo.environment["DOCPREVIEW_BLOBS"], cacheBytes: cacheBytes)
        } catch {
            throw ValidationError("--blobs: \(error)")
        }
        do {
            return try await StoreBackend(
                root: location, database: database, blobs: blobs, offload: offload, statementTimeout: statementTimeout,
                logger: .cli)
        } catch {
            if let fault = StoreFault(error) {
                var failure = fault.previewError
                failure.message = "Cannot open the store at \(location.path): \(failure.message)"
                failure.detail = "\(error)"
                throw failure
            }
            let withDatabase = database == nil ? "" : " with its database"
            throw ValidationError("Cannot open the store at \(location.path)\(withDatabase): \(error)")
        }
    }

    func open() async throws -> Store { try await backend().store }

    /// The document service over the store, its queue and downloads, holding documents to
    /// `configuration`'s rules, rendering in `renderers`' children (nil: in this process), its
    /// blocking work on `offload`'s lanes, its database statements given `statementTimeout`.
    func documents(
        configuration: Configuration = Configuration(), renderers: RendererPool? = nil, offload: Offload = .commandLine,
        arrivals: JobArrivals? = nil, statementTimeout: Duration = StoreBackend.statementTimeout,
        logger: Logger = .cli
    ) async throws -> DocumentService {
        DocumentService(
            backend: try await backend(offload: offload, statementTimeout: statementTimeout), configuration: configuration, renderers: renderers,
            openDocuments: 8, offload: offload, arrivals: arrivals, logger: logger)
    }

    private func databaseAddress() throws -> String? {
        guard let databaseFile else { return database }
        if database != nil { throw ValidationError("Give --database or --database-file, not both.") }
        guard let text = try? String(contentsOfFile: databaseFile, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty
        else {
            throw ValidationError("Cannot read a database address from \(databaseFile).")
        }
        return String(line)
    }
}

extension Offload {
    /// The lanes of a command that works on the store: renders as wide as the machine, a few for files.
    static let commandLine = Offload(reads: 4, writes: 4, renders: ProcessInfo.processInfo.activeProcessorCount)
}

extension Logger {
    /// The CLI's logger: structured lines on stderr, level from `$DOCPREVIEW_LOG_LEVEL` (default warning).
    static let cli: Logger = {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["DOCPREVIEW_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
            return handler
        }
        return Logger(label: "docpreview")
    }()
}

extension IngestOutcome {
    /// ok and no_preview exit 0; rejected 3; failed 4, or 1 when the failure was our own.
    var exitCode: ExitCode {
        switch status {
        case .ok, .noPreview: .success
        case .rejected: .refused
        case .failed: failure.map(ExitCode.init) ?? .failure
        }
    }

    var humanReadable: String {
        var line = "\(path): \(status.rawValue)"
        if let kind { line += " (\(kind))" }
        if let error { line += " — \(error.code): \(error.message)" }
        if let preview { line += " → \(preview.path) \(preview.width)×\(preview.height)" }
        if let documentID { line += " [document \(documentID)]" }
        return line
    }
}
