import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments
import PreviewStore

/// `docpreview list`: the latest version of each document, filtered and sorted like `GET /v1/documents`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List documents (their latest versions).")

    @Option(help: "Only this owner's documents.")
    var owner: String?

    @Option(help: "Only documents of this declared type.")
    var type: String?

    @Option(help: "Only documents of this detected kind (pdf, mp4, docx, …).")
    var kind: String?

    @Option(name: .customLong("q"), help: "Only titles containing this text (any case).")
    var titleContains: String?

    @Option(help: "Only documents whose preview is pending, ready, no_preview or failed.")
    var status: PreviewStatus?

    @Option(help: "newest, oldest, title or type.")
    var sort: DocumentQuery.Sort = .newest

    @Option(help: "Documents per page (1–\(DocumentQuery.maxLimit)).")
    var limit = 50

    @Option(help: "Continue after this cursor (the next_cursor of the previous page).")
    var cursor: String?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try OptionRange.check("--limit", limit, 1...DocumentQuery.maxLimit)
        if let cursor, DocumentCursor(token: cursor, sort: sort) == nil {
            throw ValidationError("--cursor is not a cursor this listing gave with --sort \(sort.rawValue).")
        }
    }

    func run() throws {
        let query = DocumentQuery(owner: owner, type: type, kind: kind, titleContains: titleContains, status: status, sort: sort,
                                  limit: limit, after: cursor.flatMap { DocumentCursor(token: $0, sort: sort) })
        let page = try storeOptions.documents().list(query)
        var lines = page.documents.map { document in
            ["\(document.id)", "v\(document.version)", document.kind.rawValue, "\(document.size)", document.previewStatus.rawValue,
             SafeText.terminal(document.owner), SafeText.terminal(document.title)].joined(separator: "\t")
        }
        if let next = page.next { lines.append("more: --cursor \(next.token)") }
        try CommandReport(json: json).succeed(DocumentList(page), human: lines.isEmpty ? "no documents" : lines.joined(separator: "\n"))
    }
}

/// `docpreview versions ID`: every version of a document, newest first.
struct VersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "versions", abstract: "List the versions of a document.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let documents = try storeOptions.documents()
        let report = CommandReport(json: json)
        let versions = try report.attempt { try documents.versions(of: id) }
        let lines = versions.map { "v\($0.version)\t\($0.id)\t\($0.size)\t\($0.sha256.hex)\t\($0.createdAt.formatted(.iso8601))\t\($0.previewStatus.rawValue)" }
        try report.succeed(VersionList(versions), human: lines.joined(separator: "\n"))
    }
}

/// `docpreview restore ID --version N`: an earlier version becomes the current one (a new version, same blob).
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Make an earlier version of a document current again.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @Option(help: "The version to restore.")
    var version: Int

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        try OptionRange.check("--version", version, 1...Int(Int32.max))
    }

    func run() throws {
        let documents = try storeOptions.documents()
        let report = CommandReport(json: json)
        let (document, job) = try report.attempt { try documents.restore(version: version, of: id) }
        try report.succeed(DocumentView(document), human: "v\(version) restored as v\(document.version) [document \(document.id)], job \(job.status.rawValue)")
    }
}

/// `docpreview delete ID [--version N]`: a document with all its versions, or one version.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a document (all versions, or one); gc reclaims what nothing refers to any more.")

    @Argument(help: "A document id (any of its versions).")
    var id: String

    @Option(help: "Only this version.")
    var version: Int?

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if let version { try OptionRange.check("--version", version, 1...Int(Int32.max)) }
    }

    func run() throws {
        let documents = try storeOptions.documents()
        let report = CommandReport(json: json)
        let deletion = try report.attempt { try documents.delete(id: id, version: version) }
        let numbers = deletion.versions.map(\.version).sorted()
        try report.succeed(DeletionView(deletion, id: id), human: "deleted \(numbers.map { "v\($0)" }.joined(separator: ", ")); \(deletion.cancelledJobs) jobs cancelled")
    }
}

extension PreviewStatus: ExpressibleByArgument {}
extension DocumentQuery.Sort: ExpressibleByArgument {}
