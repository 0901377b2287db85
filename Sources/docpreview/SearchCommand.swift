import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments

/// `docpreview search QUERY`: the current documents whose pages or labels hold a text, best first,
/// as `GET /v1/search` finds them.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find the documents whose pages, title, description, file name or school hold a text.",
        discussion: """
            Case, accents and width do not matter, and the text may start or end inside a word. Documents whose \
            labels hold it come first, then those whose pages hold it most often; each with the page that holds it \
            most often and a few words around its first hit there. A document's pages are searchable once its \
            text job has read them.
            """
    )

    @Argument(help: "The text (\(TextHits.storeWideLengths.lowerBound) to \(TextHits.storeWideLengths.upperBound) characters).")
    var query: String

    @Option(help: "Only this owner's documents.")
    var owner: String?

    @Option(help: "Only documents of this declared type.")
    var type: String?

    @Option(help: "Documents per page (1–50).")
    var limit = 20

    @Option(help: "Continue at this cursor (the next_cursor of the previous page).")
    var cursor = 0

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print the JSON of GET /v1/search.")
    var json = false

    func validate() throws {
        try OptionRange.check("--limit", limit, 1...50)
        try OptionRange.check("--cursor", cursor, 0...DocumentService.maxRankedDocuments)
    }

    func run() async throws {
        let report = CommandReport(json: json)
        guard let hits = TextHits(query: query), TextHits.storeWideLengths.contains(hits.text.count) else {
            throw ValidationError(TextHits.requirement("The text", lengths: TextHits.storeWideLengths) + ".")
        }
        let page = try await storeOptions.documents().searchStore(hits, owner: owner, type: type, limit: limit, offset: cursor)
        var lines = page.hits.map { found in
            let place =
                found.hit.map { hit in
                    "p. \(hit.page)\t…\(hit.snippet.before) [\(hit.snippet.match)] \(hit.snippet.after)…"
                } ?? "in its labels"
            return [found.document.id, SafeText.terminal(found.document.title), SafeText.terminal(place)].joined(separator: "\t")
        }
        if !page.complete { lines.append("(ranked among the first matches read: a longer text finds fewer)") }
        if let next = page.next { lines.append("more: --cursor \(next)") }
        try report.succeed(StoreSearchView(query: hits.text, page), human: lines.isEmpty ? "no documents" : lines.joined(separator: "\n"))
    }
}
