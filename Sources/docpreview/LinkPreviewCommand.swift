import ArgumentParser
import Foundation
import PreviewCore
import PreviewDocuments
import PreviewFetch

/// `docpreview link-preview URL`: a link's card, made as `POST /v1/links/preview` makes it and
/// kept in the store's cache of cards.
struct LinkPreviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link-preview",
        abstract: "Print a link's card: its title, text, author, date and picture (Open Graph, oEmbed, JSON-LD, yt-dlp).",
        discussion: """
            The link is fetched in a child process of its own, every address it leads to checked (private, loopback and \
            link-local addresses are refused unless --allow-private-fetch names them). The card and its picture's \
            thumbnail are kept in the store (--store): asked again within a day, the kept card is printed.
            """)

    @Argument(help: "The link (http or https).")
    var url: String

    @Option(help: ArgumentHelp("Write the card's picture (a thumbnail) to this file.", valueName: "file"))
    var picture: String?

    @OptionGroup var addresses: FetchAddressOptions
    @OptionGroup var validation: ValidationOptions
    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print {card, picture_sha256, picture_error, fetched_at, stale} as JSON, or the error object.")
    var json = false

    /// The card as printed in JSON.
    struct Printed: Encodable {
        var card: LinkCard
        var pictureSha256: String?
        var pictureError: String?
        var fetchedAt: Date
        var stale: Bool
    }

    func run() async throws {
        let report = CommandReport(json: json)
        let configuration = try validation.settings.configuration()
        let documents = try await storeOptions.documents(configuration: configuration)
        let links = LinkPreviews(documents: documents, fetcher: addresses.fetcher, logger: .cli)
        let answer = try await report.attempt { try await links.card(of: url) {} }
        if let picture, let hash = answer.record.picture, let stored = try await links.picture(hash) {
            try Data(stored.bytes).write(to: URL(fileURLWithPath: picture))
        }
        let card = answer.card
        let lines: [String?] = [
            card.title ?? card.canonicalURL,
            ([card.site, card.kind.rawValue, card.author.flatMap { $0.name ?? $0.handle }, card.publishedAt] as [String?]).compactMap { $0 }
                .joined(separator: " · "),
            card.text,
            answer.record.picture.map { "picture: \($0.hex)" } ?? answer.record.pictureError.map { "no picture: \($0.message)" }
        ]
        try report.succeed(
            Printed(
                card: card, pictureSha256: answer.record.picture?.hex, pictureError: answer.record.pictureError?.message,
                fetchedAt: answer.record.fetchedAt, stale: answer.stale),
            human: lines.compactMap { $0 }.joined(separator: "\n"))
    }
}
