import ArgumentParser
import Foundation
import PreviewCore
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
        let page = try storeOptions.open().index.list(query)
        var lines = page.documents.map { document in
            ["\(document.id)", "v\(document.version)", document.kind.rawValue, "\(document.size)", document.previewStatus.rawValue,
             SafeText.terminal(document.owner), SafeText.terminal(document.title)].joined(separator: "\t")
        }
        if let next = page.next { lines.append("more: --cursor \(next.token)") }
        try CommandReport(json: json).succeed(ListedPage(documents: page.documents, nextCursor: page.next?.token),
                                              human: lines.isEmpty ? "no documents" : lines.joined(separator: "\n"))
    }

    struct ListedPage: Encodable {
        var documents: [DocumentRecord]
        var nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case documents
            case nextCursor = "next_cursor"
        }
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
        let versions = try storeOptions.open().index.versions(of: id)
        let report = CommandReport(json: json)
        if versions.isEmpty { try report.fail(PreviewError(.notFound, "No document \(id).")) }
        let lines = versions.map { "v\($0.version)\t\($0.id)\t\($0.size)\t\($0.sha256.hex)\t\($0.createdAt.formatted(.iso8601))\t\($0.previewStatus.rawValue)" }
        try report.succeed(["versions": versions], human: lines.joined(separator: "\n"))
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
        let backend = try storeOptions.backend()
        let report = CommandReport(json: json)
        guard let (document, job) = try backend.queue.restore(version: version, of: id, in: backend.store) else {
            try report.fail(PreviewError(.notFound, "No version \(version) of document \(id)."))
        }
        try report.succeed(document, human: "v\(version) restored as v\(document.version) [document \(document.id)], job \(job.status.rawValue)")
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
        let deletion = try storeOptions.open().index.delete(documentID: id, version: version)
        let report = CommandReport(json: json)
        if deletion.versions.isEmpty {
            try report.fail(PreviewError(.notFound, version.map { "No version \($0) of document \(id)." } ?? "No document \(id)."))
        }
        let numbers = deletion.versions.map(\.version).sorted()
        try report.succeed(Deleted(deletedVersions: numbers, cancelledJobs: deletion.cancelledJobs),
                           human: "deleted \(numbers.map { "v\($0)" }.joined(separator: ", ")); \(deletion.cancelledJobs) jobs cancelled")
    }

    struct Deleted: Encodable {
        var deletedVersions: [Int]
        var cancelledJobs: Int

        enum CodingKeys: String, CodingKey {
            case deletedVersions = "deleted_versions"
            case cancelledJobs = "cancelled_jobs"
        }
    }
}

extension PreviewStatus: ExpressibleByArgument {}
extension DocumentQuery.Sort: ExpressibleByArgument {}
