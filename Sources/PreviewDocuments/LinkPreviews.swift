import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewFetch
import PreviewStore

/// Links' cards (``LinkCard``), each made by a fetch child of its own (``LinkFetcher/card(of:settings:into:)``)
/// and kept in the index by normalised link (``LinkCardRecord``): its picture, or the preview of a
/// file it links to, made by the renderers from the fetched bytes and stored as a thumbnail (the
/// site's own picture is never sent on). A kept card is answered while fresh
/// (``LinkPreviewSettings/freshSeconds``), then still answered while one refresh runs; a link
/// that gave no card answers its failure until ``LinkPreviewSettings/failureSeconds`` have passed.
/// Requests for a link being fetched wait for that fetch; ``maxFetches`` run at once.
package final class LinkPreviews: Sendable {
    let documents: DocumentService
    let fetcher: LinkFetcher
    let logger: Logger
    /// The fetch children's lane: their waits never hold Swift's threads.
    let offload: Offload
    /// The fetches running, by normalised link (a second request for one waits for it), and when
    /// the last ones that ended fetched (a request that read the card before one was kept starts no
    /// other refresh).
    private let running = Locked(Fetches())

    private struct Fetches {
        var tasks: [String: Task<LinkCardRecord, any Error>] = [:]
        var ended: [String: Date] = [:]
    }

    /// Fetch children at once, in this process.
    package static let maxFetches = 4
    /// The links whose last fetch's end is remembered, at most.
    static let maxRemembered = 10_000

    package init(documents: DocumentService, fetcher: LinkFetcher, logger: Logger) {
        self.documents = documents
        self.fetcher = fetcher
        self.logger = logger
        offload = Offload(reads: 1, writes: 1, renders: Self.maxFetches)
    }

    /// A card as answered: what was kept, whether it was past fresh (a refresh is then running).
    package struct Answer: Sendable {
        package var record: LinkCardRecord
        package var card: LinkCard
        package var stale: Bool
    }

    private var settings: LinkPreviewSettings { documents.pipeline.configuration.links }
    /// `STORE/fetch/`, where each fetch has a workspace of its own, removed after it.
    private var workspaces: URL { documents.store.blobs.stagingFolder.deletingLastPathComponent().appendingPathComponent("fetch") }

    /// The card of `text`: kept and fresh, kept and stale (one refresh started), or made now.
    /// `beforeFetching` runs before a fetch this request starts (a pace's check: it may throw).
    /// Throws a bad link's refusal, or the failure the link gave (kept for a while).
    package func card(of text: String, beforeFetching: () throws -> Void) async throws -> Answer {
        let link = try WebLink(text, use: "previewed")
        let now = documents.clock.now
        if let kept = try await documents.store.index.linkCard(url: link.normalized) {
            let age = now.timeIntervalSince(kept.fetchedAt)
            if let error = kept.error {
                if age < settings.failureSeconds { throw error }
            } else if let card = Self.decoded(kept) {
                let stale = age >= settings.freshSeconds
                if stale { _ = fetch(link, replacing: kept) {} }
                ServiceMetrics.linkCards(outcome: stale ? "stale" : "cached")
                return Answer(record: kept, card: card, stale: stale)
            }
        }
        let record = try await fetch(link, replacing: nil, beforeStarting: beforeFetching).value
        if let error = record.error { throw error }
        guard let card = Self.decoded(record) else { throw PreviewError(.internal, "The card could not be read back.") }
        return Answer(record: record, card: card, stale: false)
    }

    /// The fetch of `link` that runs, or a new one, which records its card when done;
    /// `beforeStarting` runs first (and may refuse it). A refresh of `stale` that fails keeps it,
    /// answered as it is for ``LinkPreviewSettings/failureSeconds`` before the next try.
    private func fetch(
        _ link: WebLink, replacing stale: LinkCardRecord?, beforeStarting: () throws -> Void
    ) rethrows -> Task<LinkCardRecord, any Error> {
        let key = link.normalized
        return try running.withLock { running in
            if let task = running.tasks[key] { return task }
            if let stale, let ended = running.ended[key], ended > stale.fetchedAt {
                return Task { stale }  // refreshed since it was read
            }
            try beforeStarting()
            let settings = settings
            let task = Task { [self] in
                var ended = documents.clock.now
                defer {
                    self.running.withLock { running in
                        running.tasks[key] = nil
                        if running.ended.count >= Self.maxRemembered { running.ended.removeAll() }
                        running.ended[key] = ended
                    }
                }
                var record = try await make(link)
                if record.error != nil, var stale {
                    stale.fetchedAt = record.fetchedAt.addingTimeInterval(settings.failureSeconds - settings.freshSeconds)
                    record = stale
                }
                try await documents.store.index.recordLinkCard(record)
                ended = record.fetchedAt
                return record
            }
            running.tasks[key] = task
            return task
        }
    }

    /// Fetches `link`'s card and makes its picture: the record to keep (a failure's too).
    private func make(_ link: WebLink) async throws -> LinkCardRecord {
        let workspace = workspaces.appendingPathComponent("\(getpid())-card-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let (fetcher, settings) = (fetcher, settings)
        let reply = try await offload.run(.renders) { fetcher.card(of: link, settings: settings, into: workspace) }
        // Whole seconds, which both backends keep exactly: the record answered is the record kept.
        let fetchedAt = Date(timeIntervalSince1970: documents.clock.now.timeIntervalSince1970.rounded(.down))
        guard var card = reply.card else {
            let failure = reply.failure?.error ?? PreviewError(.internal, "The card could not be made.")
            ServiceMetrics.linkCards(outcome: "failed")
            logger.info("link card failed", metadata: ["preview.code": "\(failure.code)", "preview.reason": "\(failure.message)"])
            return LinkCardRecord(url: link.normalized, card: nil, error: failure, fetchedAt: fetchedAt)
        }
        var record = LinkCardRecord(url: link.normalized, card: nil, fetchedAt: fetchedAt)
        if let code = reply.pictureCode {
            record.pictureError = PreviewError(PreviewError.Code(rawValue: code) ?? .internal, reply.pictureMessage ?? "")
        } else if let file = reply.picture ?? reply.file {
            do {
                let (kind, image) = try await documents.pipeline.linkThumbnail(ofFileAt: file, imagesOnly: reply.file == nil)
                record.picture = try await documents.store.blobs.put(bytes: image.bytes, as: .derivative)
                (record.pictureSize, record.pictureMime) = (image.bytes.count, image.format.mime)
                if reply.file != nil { Self.describe(&card, as: kind, facts: image.facts) }
            } catch let error as PreviewError {
                record.pictureError = error
            }
        }
        record.card = Self.encoded(card)
        ServiceMetrics.linkCards(outcome: "made")
        return record
    }

    /// A linked file's card as its bytes say: a video or an image is one, other files are files;
    /// its size, length and pages as the renderer read them.
    static func describe(_ card: inout LinkCard, as kind: FileKind, facts: MediaFacts) {
        let video = kind.category == .video
        card.kind = video ? .video : kind.category == .image ? .image : .file
        card.media = [LinkCard.Media(type: video ? "video" : "image", width: facts.width, height: facts.height, duration: facts.durationSeconds)]
        let pages = facts.pages.map { $0 == 1 ? "1 page" : "\($0) pages" }
        let name = String(kind.label.drop { $0 != " " }.dropFirst())  // "a PDF": "PDF"
        card.text = card.text ?? ([name] + (pages.map { [$0] } ?? [])).joined(separator: " · ")
    }

    static func encoded(_ card: LinkCard) -> String {
        String(decoding: (try? JSONEncoder().encode(card)) ?? Data(), as: UTF8.self)
    }

    static func decoded(_ record: LinkCardRecord) -> LinkCard? {
        record.card.flatMap { try? JSONDecoder().decode(LinkCard.self, from: Data($0.utf8)) }
    }

    /// The picture of a card whose picture is `hash` (its bytes and type), or nil: no card's. Its
    /// bytes are checked against its name, as every stored derivative's are when served
    /// (``DocumentService/intactBytes(of:)``); a damaged or missing one is counted, logged and not served.
    package func picture(_ hash: BlobHash) async throws -> (bytes: [UInt8], mime: String)? {
        guard let mime = try await documents.store.index.linkPicture(hash) else { return nil }
        guard let bytes = await documents.intactBytes(of: hash) else {
            ServiceMetrics.damagedBlobs(kind: "link picture", problem: "damaged")
            logger.error("a link card's picture is damaged or missing", metadata: ["preview.derivative": "\(hash)"])
            return nil
        }
        return (bytes, mime)
    }
}
