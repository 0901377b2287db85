import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import ServiceLifecycle

/// `docpreview worker`: processes a store's queue from another process.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Process queued jobs of a store until SIGTERM/SIGINT.")

    @Option(help: "Jobs processed at once.")
    var concurrency = ProcessInfo.processInfo.activeProcessorCount

    @Option(
        help: ArgumentHelp(
            "How long a job stays this "
                + "worker's without word from it (renewed every third of it while the job runs): how soon another host takes over a dead worker's "
                + "jobs. Default: twice the job time + 30 s.",
            valueName: "seconds"))
    var leaseSeconds: Double?

    func validate() throws {
        try OptionRange.check("--concurrency", concurrency, 1...256)
        if let leaseSeconds { try OptionRange.check("--lease-seconds", leaseSeconds, 3...86_400) }
    }

    @OptionGroup var isolation: IsolationOptions
    @OptionGroup var validation: ValidationOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var fetch: FetchOptions

    func run() async throws {
        let logger = Logger.cli
        let configuration = try validation.settings.configuration()
        let documents = try await storeOptions.documents(
            configuration: configuration,
            renderers: isolation.pool(
                jobs: concurrency,
                backgroundJobs: concurrency + QueueWorker.defaultTextLanes,
                limits: configuration.limits, logger: logger),
            offload: Offload(
                reads: 4, writes: 4, renders: concurrency + 1,
                background: concurrency + QueueWorker.defaultTextLanes),
            logger: logger)
        var worker = QueueWorker(documents: documents, concurrency: concurrency, logger: logger)
        if let leaseSeconds { worker.leaseSeconds = leaseSeconds }
        var services: [any Service] = [worker]
        if let fetcher = fetch.worker(documents: documents, logger: logger) { services.append(fetcher) }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
