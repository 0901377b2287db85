import ArgumentParser
import Foundation
import Logging
import PreviewCore
import PreviewDocuments
import PreviewPipeline

/// `docpreview batch DIR …`: every regular file under DIR into the store, in parallel.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Ingest every file under a folder; print a summary, optionally write a JSON report and an HTML contact sheet.",
        discussion: "Exits 0 when it ran to the end, whatever the files' outcomes; the report says which were refused and why.")

    @Argument(help: "The folder to ingest (recursively).")
    var directory: String

    @Option(help: "Owner of the documents.")
    var owner = ""

    @Option(help: "Files rendered at once (default: the number of cores); four times as many are in flight, read and stored while those render.")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("Write the JSON report here.", valueName: "file.json"))
    var report: String?

    @Option(help: ArgumentHelp("Write an HTML contact sheet here.", valueName: "file.html"))
    var html: String?

    @Flag(help: "Also make videos' renditions and scrubbing thumbnails (as the queue's playback jobs do).")
    var renditions = false

    @OptionGroup var isolation: IsolationOptions
    @OptionGroup var validation: ValidationOptions
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        try OptionRange.check("--jobs", jobs, 1...256)
    }

    func run() async throws {
        let configuration = try validation.settings.localConfiguration()
        let type = try validation.settings.declaredType(in: configuration)
        let folder = URL(fileURLWithPath: directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("No such folder: \(directory)")
        }
        // A thread for every file in flight's render, and for their copies into the store.
        let lanes = BatchRunner.filesInFlight(jobs: jobs, isolated: !isolation.inProcess)
        let documents = try await storeOptions.documents(
            configuration: configuration,
            renderers: isolation.pool(jobs: jobs, limits: configuration.limits, logger: .cli),
            offload: Offload(reads: 4, writes: lanes, renders: lanes))
        let runner = BatchRunner(documents: documents, jobs: jobs, owner: owner, type: type, renditions: renditions)
        let bar = ProgressBar()
        let result = try await runner.run(folder) { bar.update($0) }
        bar.finish()
        if let report {
            try write(try CommandReport.encode(result), to: report)
        }
        if let html {
            let page = URL(fileURLWithPath: html)
            try write(ContactSheet.html(result, pageFolder: page.deletingLastPathComponent()), to: html)
        }
        let s = result.summary
        print(
            "\(result.files.count) files in \(s.elapsedSeconds) s (\(s.filesPerSecond) files/s): ok \(s.ok), "
                + "no preview \(s.noPreview), rejected \(s.rejected), failed \(s.failed), skipped \(s.skipped)")
        for file in result.files where file.status == .rejected || file.status == .failed {
            print(CommandReport.forPeople("  \(file.humanReadable)"))
        }
        for entry in result.skipped { print(CommandReport.forPeople("  \(entry.path): skipped — \(entry.reason)")) }
        let unstored = result.files.filter { $0.error?.code == PreviewError.Code.storageFull.rawValue }.count
        if unstored > 0 {
            print(
                "The store's disk is full: \(unstored) files could not be stored. Free some space and run the same batch again; "
                    + "files stored already are recognised without a copy.")
        }
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("Cannot write \(path): \(error.localizedDescription)")
        }
    }
}
