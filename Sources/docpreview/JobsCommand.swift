import ArgumentParser
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain

/// `docpreview jobs list|retry ID|retry-failed|backfill`.
struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "List jobs, queue failed ones again, or queue the playback work stored videos lack.",
        subcommands: [List.self, Retry.self, RetryFailed.self, Backfill.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List jobs, newest first (1,000 at most).")

        @Option(help: "Only jobs with this status (queued, processing, done, failed).")
        var status: JobRecord.Status?

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let jobs = try await storeOptions.backend().queue.jobs(status: status, limit: 1000)
            let lines = jobs.map {
                ["\($0.id ?? 0)", $0.kind.rawValue, $0.status.rawValue, "\($0.attempts) attempts", $0.documentID, $0.errorCode?.rawValue ?? ""]
                    .joined(separator: "\t")
            }
            try CommandReport(json: json).succeed(jobs, human: lines.isEmpty ? "no jobs" : lines.joined(separator: "\n"))
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue a failed job again, its file's remembered timeouts and crashes forgotten first.")

        @Argument(help: "The job's id (`jobs list`).")
        var id: Int64

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let report = CommandReport(json: json)
            guard try await storeOptions.documents().retryJob(id: id) else { try report.fail(PreviewError(.notFound, "No failed job \(id).")) }
            try report.succeed(["retried": 1], human: "job \(id) queued again")
        }
    }

    struct RetryFailed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry-failed", abstract: "Queue every failed job again, every remembered failure forgotten first.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let count = try await storeOptions.documents().retryFailedJobs()
            try CommandReport(json: json).succeed(["retried": count], human: "\(count) failed jobs queued again")
        }
    }

    struct Backfill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Queue the playback work stored videos lack, and the text stored paged documents lack.",
            discussion: """
                For the latest version of every stored video without its playback derivatives (stored before schema v9, or by \
                ingest/batch without --renditions), queues the job that makes them (its preview job again when its playback \
                decision was never made); for every paged document (PDF, office) whose text was never read, its text job. \
                A worker or serve runs them. Give the workers' --config.
                """)

        @Option(help: ArgumentHelp("The workers' configuration (its rendition settings name the derivatives).", valueName: "file"))
        var config: String?

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let queued = try await storeOptions.documents(
                configuration: try ValidationSettings(config: config).configuration(),
                statementTimeout: StoreBackend.wholeStoreStatementTimeout
            ).backfill()
            try CommandReport(json: json).succeed(
                queued,
                human: "\(queued.playback) playback jobs queued; \(queued.probes) videos without a "
                    + "playback decision queued for their preview job again (their playback job follows); "
                    + "\(queued.text) text jobs queued")
        }
    }
}

extension JobRecord.Status: ExpressibleByArgument {}
