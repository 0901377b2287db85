import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments
import PreviewRenderers
import PreviewStore

/// `docpreview text FILE|ID [--page N]`: the text of a PDF's or office document's pages in reading
/// order, from its text layer: read now from a file, or as a stored document's text job read it.
struct TextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Print the text of a document's pages in reading order: a PDF's, an office document's, a scan's or a photo's.",
        discussion: """
            The text comes from the document's text layer (an office document's is its PDF conversion's). A page \
            without one (a scan) and an image are read from their pixels by OCR (Tesseract, in the languages of \
            the configuration's ocr_languages, English by default), unless --no-ocr is given. Given a stored document's id rather than a file, its \
            text is what its text job read \
            (with --store or --database). Pages are separated by a blank line. With --json, each page's words come with their boxes \
            in points on the page as displayed (left, top, right, bottom, from the top left corner).
            """
    )

    @Argument(help: "The PDF, office document or image, or a stored document's id.")
    var input: String

    @Option(help: "Only this page, from 1.")
    var page: Int?

    @Flag(name: .customLong("no-ocr"), help: "Read only text layers: no OCR of scans and images.")
    var noOCR = false

    @OptionGroup var validation: ValidationOptions

    @OptionGroup var storeOptions: StoreOptions

    @Flag(
        help:
            "Print {\"pages\":[{\"page\",\"width\",\"height\",\"text\",\"words\":[{\"text\",\"box\",\"next\"}],\"truncated\"}]} or the error object.")
    var json = false

    func validate() throws {
        if let page, page < 1 { throw ValidationError("--page starts at 1.") }
    }

    func run() throws {
        if !FileManager.default.fileExists(atPath: input), UUID(uuidString: input) != nil { printStored() }
        OneFileHeap.prepare()
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        let renderers = Renderers(limits: configuration.limits, openDocuments: 1)
        let (input, pages, languages) = (input, page.map { $0...$0 }, noOCR ? nil : configuration.ocrLanguages)
        // Awaited: an office document's text comes from its pivot, which a child makes.
        Main.finish {
            let texts = try await report.attempt { () async throws -> [PageText] in
                guard let texts = try await renderers.text(of: input, kind: verdict.kind, pages: pages, ocr: languages, on: .commandLine) else {
                    throw PreviewError(
                        .unsupportedType,
                        "No text is read from \(verdict.kind.label): it has no pages\(languages == nil ? " (and --no-ocr reads no image)" : "").")
                }
                return texts
            }
            try report.succeed(TextReport(pages: texts.map(PageTextReport.init)), human: texts.map(\.plainText).joined(separator: "\n\n"))
        }
    }
}

extension TextCommand {
    /// The text of stored document `input`, as its text job read it.
    private func printStored() -> Never {
        let (report, id, pages, json, storeOptions) = (CommandReport(json: json), input, page.map { $0...$0 }, json, storeOptions)
        Main.finish {
            let texts = try await report.attempt { () async throws -> [PageTexts.Page] in
                let documents = try await storeOptions.documents()
                let answer = try await documents.textAnswer(of: try await documents.document(id: id), pages: pages, words: json)
                guard case let .ready(_, texts) = answer else {
                    throw PreviewError(.conflict, "Its text is not read yet: its text job waits for a serve or worker to run it.")
                }
                return texts
            }
            try report.succeed(
                TextReport(pages: texts.compactMap { $0.words.map(PageTextReport.init) }),
                human: texts.map(\.text).joined(separator: "\n\n"))
        }
    }
}

/// The `text --json` object.
struct TextReport: Encodable {
    var pages: [PageTextReport]
}
