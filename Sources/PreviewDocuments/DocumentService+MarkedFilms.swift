import Foundation
import PreviewCore
import PreviewDomain

/// A watermarked share of a video plays a film of its own: the video re-encoded with the share's
/// watermark burned into every frame, made by the document's playback job (one per watermark's
/// text, kept as derivatives of the video's bytes) and queued again when a share needs one that is
/// not made. Until it is, the share plays nothing; the video's own rendition, ladder, thumbnails
/// and teaser are never served through it.
extension DocumentService {
    /// The playback files `share` serves of `document`: a watermarked share's video only its marked
    /// film (nil until made: its playback job is queued for it then), any other its own.
    package func playbackManifest(of document: Document, through share: ShareRecord?) async throws -> Playback? {
        guard let text = share?.watermark, document.kind.category == .video else { return try await playbackManifest(of: document) }
        if let marked = try await pipeline.markedPlayback(of: document, watermark: Watermark(text: text)) { return marked }
        try await queueMarkedFilms(of: document)
        return nil
    }

    /// Queues `document`'s playback job (unless one waits) when it is a video: the job makes the
    /// films its watermarked shares need.
    func queueMarkedFilms(of document: Document) async throws {
        guard document.playback != nil else { return }
        if try await queue.queueUnlessWaiting(documentID: document.id, kind: .playback) { arrivals?.announce() }
    }

    /// The watermarks of the live shares that show `document`, which its playback job films.
    func filmedWatermarks(of document: Document) async throws -> [Watermark] {
        let now = clock.now
        var texts: Set<String> = []
        for share in try await store.index.shares(ofDocument: document.id) where share.isLive(at: now) {
            guard let text = share.watermark, !texts.contains(text), try await sharedDocument(share).id == document.id else { continue }
            texts.insert(text)
        }
        return texts.sorted().map(Watermark.init(text:))
    }
}
