import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewStore

/// `docpreview list`: the latest version of each document, filtered and sorted like `GET /v1/documents`.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List documents (their latest versions).")

    @Option(help: "Only this owner's documents.")
    var owner: String?

    @Option(help: "Only documents of this declared type.")
    var type: String?

    @Option(help: "Only documents of this detected kind (pdf, mp4, docx, …).")
    var kind: String?

    @Option(help: "Only documents for this school.")
    var school: String?

    @Option(name: .customLong("q"), help: "Only documents whose title, description or file name contains this text (any case).")
    var containing: String?

    @Option(help: "Only documents whose preview is pending, ready, no_preview or failed.")
    var status: PreviewStatus?

    @Option(help: "newest, oldest, title, type or most_shared.")
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

    func run() async throws {
        let query = DocumentQuery(
            owner: owner, type: type, kind: kind, school: school, containing: containing, status: status, sort: sort,
            limit: limit, after: cursor.flatMap { DocumentCursor(token: $0, sort: sort) })
        let page = try await storeOptions.documents().list(query)
        var lines = page.documents.map { document in
            [
                "\(document.id)", "v\(document.version)", document.kind.rawValue, "\(document.size)", document.previewStatus.rawValue,
                SafeText.terminal(document.owner), SafeText.terminal(document.title)
            ].joined(separator: "\t")
        }
        if let next = page.next { lines.append("more: --cursor \(next.token)") }
        try CommandReport(json: json).succeed(DocumentList(page), human: lines.isEmpty ? "no documents" : lines.joined(separator: "\n"))
    }
}

extension PreviewStatus: ExpressibleByArgument {}
extension DocumentQuery.Sort: ExpressibleByArgument {}
