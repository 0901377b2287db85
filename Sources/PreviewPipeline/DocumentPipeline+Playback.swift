import Foundation
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

extension DocumentPipeline {
    /// The one MP4 rendition's name.
    package static let renditionName = "mp4"
    /// The type of an HLS playlist.
    package static let playlistMime = "application/vnd.apple.mpegurl"

    /// Whether `document` gets an HLS ladder: a video long or large enough (``RenditionSettings/wantsLadder(seconds:bytes:)``).
    package func wantsLadder(_ document: Document) -> Bool {
        document.playback != nil && renderers.playback.settings.wantsLadder(seconds: document.durationSeconds, bytes: document.size)
    }

    /// The stored playback manifest of `document`, if its playback job has made one.
    package func playbackManifest(of document: Document) async throws(PreviewError) -> PlaybackManifest? {
        try await manifest(of: document, file: PlaybackManifest.fileName)
    }

    /// The manifest of `document`'s film with `watermark` burned into every frame (its rendition
    /// only, or why it has none), if its playback job has made it.
    package func markedPlayback(of document: Document, watermark: Watermark) async throws(PreviewError) -> PlaybackManifest? {
        try await manifest(of: document, file: Self.markedFile(watermark, "json"))
    }

    /// A marked film's file: the marking's version and the watermark's text, hashed.
    private static func markedFile(_ watermark: Watermark, _ suffix: String) -> String {
        "marked/1/\(BlobHash.of(Array(watermark.text.utf8)).hex).\(suffix)"
    }

    private func manifest(of document: Document, file: String) async throws(PreviewError) -> PlaybackManifest? {
        guard document.playback != nil, let record = try await cached(key: playbackKey(document.sha256, file: file)) else {
            return nil
        }
        do {
            return try JSONDecoder().decode(PlaybackManifest.self, from: Data(try await store.blobs.read(record.resultSha256)))
        } catch {
            throw PreviewError.storing(error, "The video's playback manifest could not be read.")
        }
    }

    /// What a video's playback job comes to: its rendition, its ladder (when long or large) and scrubbing thumbnails, found in the derivative cache
    /// (the same bytes are
    /// transcoded once) or made now in a renderer child into the staging folder, stored as
    /// derivatives whose rows are left to the caller's transaction. A rendition or ladder refused by
    /// the limits is recorded in the manifest, not failed: the thumbnails still serve. The
    /// document's own status is left as it is. `progress` is told the fraction of the encoding done.
    /// Then a film of it for each of `watermarks` not made yet (``markedFilms(of:watermarks:)``).
    package func playbackOutcome(
        of document: Document, watermarks: [Watermark] = [], progress: @escaping @Sendable (Double) -> Void = { _ in }
    ) async -> JobOutcome {
        do throws(PreviewError) {
            let manifestKey = playbackKey(document.sha256, file: PlaybackManifest.fileName)
            if try await cached(key: manifestKey) != nil {
                // Made before (the same bytes, or this document's job run again): its poster stays the one chosen.
                let poster = document.posterPlay == nil ? try await playbackManifest(of: document)?.plays?.poster : nil
                let marked = try await markedFilms(of: document, watermarks: watermarks)
                return JobOutcome(facts: Self.facts(of: document, poster: poster), previewStatus: nil, derivatives: marked)
            }
            let folder = try stagingFolder("playback")
            defer { try? FileManager.default.removeItem(at: folder) }
            let source = try await localPath(of: document.sha256)
            let maker = renderers.playback
            var manifest = PlaybackManifest()
            var made: [NewDerivative] = []
            var facts: MediaFacts?

            let sprites = try await maker.sprites(source, kind: document.kind, into: folder.path, on: offload)
            var sheets: [String: BlobHash] = [:]
            for sheet in sprites.sheets {
                let stored = try await keep(
                    folder.appendingPathComponent(sheet.name), of: document, file: sheet.name, mime: "image/jpeg",
                    width: sheet.width, height: sheet.height)
                sheets[sheet.name] = stored.record.resultSha256
                made.append(stored)
            }
            let track = try await keep(
                folder.appendingPathComponent(sprites.track), of: document, file: sprites.track, mime: "text/vtt",
                width: sprites.tileWidth, height: sprites.tileHeight)
            made.append(track)
            manifest.trickplay = .init(track: track.record.resultSha256, sheets: sheets, layout: sprites)
            do throws(PreviewError) {
                let opening = document.posterPlay == nil ? document.frameSeconds : nil
                let index = try await maker.plays(source, kind: document.kind, duration: document.durationSeconds, opening: opening, on: offload)
                let file = folder.appendingPathComponent(PlaybackManifest.Plays.chaptersName)
                do {
                    try Data(index.chapters.utf8).write(to: file)
                } catch {
                    throw PreviewError.storing(error, "The chapters track could not be written.")
                }
                let chapters = try await keep(file, of: document, file: PlaybackManifest.Plays.chaptersName, mime: "text/vtt", width: 0, height: 0)
                made.append(chapters)
                manifest.plays = .init(plays: index.plays, cuts: index.cuts, chapters: chapters.record.resultSha256, poster: index.poster)
                facts = Self.facts(of: document, poster: index.poster)
            } catch  where error.code.disposition != .internal {
                manifest.playsError = ErrorEnvelope(error).error
            }
            do throws(PreviewError) {
                let spans = VideoTeaser.spans(plays: manifest.plays?.plays ?? [], duration: document.durationSeconds ?? 0)
                let file = folder.appendingPathComponent(PlaybackManifest.Teaser.fileName)
                let teaser = try await maker.teaser(source, kind: document.kind, spans: spans, to: file.path, on: offload)
                let stored = try await keep(
                    file, of: document, file: PlaybackManifest.Teaser.fileName, mime: "video/mp4", width: teaser.width, height: teaser.height)
                made.append(stored)
                manifest.teaser = .init(file: stored.record.resultSha256, made: teaser)
            } catch  where error.code.disposition != .internal {
                manifest.teaserError = ErrorEnvelope(error).error
            }

            // Progress runs over the encodings by their work: a rendition's 1, a ladder's its rungs'.
            let shortSide = Double(min(document.width ?? 0, document.height ?? 0))
            let ladderWork = wantsLadder(document) ? VideoLadder.relativeWork(shortSide: shortSide) : 0
            let renditionShare = 1 / (1 + ladderWork)
            let file = folder.appendingPathComponent("rendition.mp4")
            do {
                let rendition = try await maker.transcode(
                    source, kind: document.kind, duration: document.durationSeconds, to: file.path,
                    on: offload
                ) { progress($0 * renditionShare) }
                let stored = try await keep(
                    file, of: document, file: Self.renditionName, mime: "video/mp4", width: rendition.width, height: rendition.height)
                made.append(stored)
                manifest.rendition = Self.entry(rendition, stored: stored)
            } catch  where error.code.disposition != .internal {
                manifest.renditionError = ErrorEnvelope(error).error
            }
            if ladderWork > 0 {
                let ladder = folder.appendingPathComponent("hls")
                do {
                    let rungs = try await maker.ladder(
                        source, kind: document.kind, duration: document.durationSeconds, shortSide: shortSide,
                        into: ladder.path, on: offload
                    ) { progress(renditionShare + $0 * (1 - renditionShare)) }
                    if let plays = manifest.plays?.plays {
                        try VideoLadder.markPlays(plays, in: rungs, folder: ladder)
                    }
                    var files: [String: BlobHash] = [:]
                    var size = 0
                    for (name, mime) in [(PlaybackManifest.Ladder.masterName, Self.playlistMime)]
                        + rungs.flatMap({ $0.playlists.map { ($0, Self.playlistMime) } + [($0.media, "video/mp4")] })
                    {
                        let stored = try await keep(
                            ladder.appendingPathComponent(name), of: document, file: "hls/\(name)", mime: mime, width: 0, height: 0)
                        files[name] = stored.record.resultSha256
                        size += stored.size
                        made.append(stored)
                    }
                    manifest.ladder = .init(rungs: rungs, files: files, size: size)
                } catch  where error.code.disposition != .internal {
                    manifest.ladderError = ErrorEnvelope(error).error
                }
            }
            made.append(try await keep(manifest, in: folder, of: document, file: PlaybackManifest.fileName))
            made += try await markedFilms(of: document, watermarks: watermarks)
            return JobOutcome(facts: facts, previewStatus: nil, derivatives: made)
        } catch {
            return JobOutcome(previewStatus: nil, error: error)
        }
    }

    /// The films of `document` with each of `watermarks` burned into every frame that are not made
    /// yet: a re-encode of the video each, stored with a manifest of its own that holds its
    /// rendition, or why the limits refused it (``markedPlayback(of:watermark:)``). Rows for the job's transaction.
    func markedFilms(of document: Document, watermarks: [Watermark]) async throws(PreviewError) -> [NewDerivative] {
        var missing: [Watermark] = []
        for watermark in Set(watermarks) {
            if try await cached(key: playbackKey(document.sha256, file: Self.markedFile(watermark, "json"))) == nil { missing.append(watermark) }
        }
        guard !missing.isEmpty else { return [] }
        let folder = try stagingFolder("marked")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try await localPath(of: document.sha256)
        var made: [NewDerivative] = []
        for watermark in missing {
            var manifest = PlaybackManifest()
            let file = folder.appendingPathComponent("marked.mp4")
            do throws(PreviewError) {
                let rendition = try await renderers.playback.transcode(
                    source, kind: document.kind, duration: document.durationSeconds, to: file.path, watermark: watermark, on: offload)
                let stored = try await keep(
                    file, of: document, file: Self.markedFile(watermark, "mp4"), mime: "video/mp4", width: rendition.width,
                    height: rendition.height)
                made.append(stored)
                manifest.rendition = Self.entry(rendition, stored: stored)
            } catch  where error.code.disposition != .internal {
                manifest.renditionError = ErrorEnvelope(error).error
            }
            made.append(try await keep(manifest, in: folder, of: document, file: Self.markedFile(watermark, "json")))
        }
        return made
    }

    /// A fresh folder in the staging folder, named after `purpose`; the caller removes it.
    private func stagingFolder(_ purpose: String) throws(PreviewError) -> URL {
        let folder = store.blobs.stagingFolder.appendingPathComponent("\(purpose)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PreviewError.storing(error, "The staging folder could not be used.")
        }
        return folder
    }

    /// The manifest's entry of `rendition`, stored as `stored`.
    private static func entry(_ rendition: VideoTranscoding.Rendition, stored: NewDerivative) -> PlaybackManifest.Rendition {
        .init(
            name: renditionName, mime: "video/mp4", codecs: rendition.codecs, width: rendition.width, height: rendition.height,
            bitrate: rendition.durationSeconds > 0 ? Int(Double(stored.size * 8) / rendition.durationSeconds) : 0,
            size: stored.size, durationSeconds: rendition.durationSeconds, sha256: stored.record.resultSha256)
    }

    /// Writes `manifest` into `folder` and stores it as `document`'s playback file `file`.
    private func keep(_ manifest: PlaybackManifest, in folder: URL, of document: Document, file: String) async throws(PreviewError)
        -> NewDerivative
    {
        let written = folder.appendingPathComponent("manifest-\(UUID().uuidString).json")
        do {
            try Data(StableJSON.encode(manifest)).write(to: written)
        } catch {
            throw PreviewError.storing(error, "The playback manifest could not be written.")
        }
        return try await keep(written, of: document, file: file, mime: "application/json", width: 0, height: 0)
    }

    /// `document`'s facts with its poster moved to `poster` when that is one of its plays' (its
    /// previews are then rendered at that time); nil when the opening's frame stays.
    static func facts(of document: Document, poster: ReelPoster?) -> MediaFacts? {
        guard let poster, let play = poster.play else { return nil }
        var facts = document.facts
        facts.frameSeconds = poster.seconds
        facts.posterScore = (poster.score * 100).rounded() / 100
        facts.posterPlay = play
        return facts
    }

    /// `outcome` of an ingested file with, for a video, its playback derivatives made (or found) and
    /// recorded: `batch --renditions` and `ingest --renditions`.
    package func addingPlayback(to outcome: IngestOutcome) async -> IngestOutcome {
        var outcome = outcome
        guard outcome.status == .ok, let id = outcome.documentID, let document = try? await store.index.document(id: id),
            let decision = document.playback
        else { return outcome }
        outcome.playback = decision
        let made = await playbackOutcome(of: document)
        do throws(PreviewError) {
            try await settle(document, with: made)
            let manifest = try await playbackManifest(of: document)
            if let rendition = manifest?.rendition {
                outcome.rendition = .init(status: "ready", size: rendition.size, codecs: rendition.codecs)
            } else {
                outcome.rendition = .init(status: "failed", error: manifest?.renditionError)
            }
            if wantsLadder(document) {
                outcome.ladder =
                    manifest?.ladder.map { .init(status: "ready", size: $0.size, codecs: $0.rungs.last?.codecs) }
                    ?? .init(status: "failed", error: manifest?.ladderError)
            }
        } catch {
            outcome.rendition = .init(status: "failed", error: ErrorEnvelope(error).error)
        }
        return outcome
    }

    /// The cache key of the playback file `file` of source `source`: the source, the file and the
    /// recipes with the libraries' versions, so new settings or a new encoder make them again.
    func playbackKey(_ source: BlobHash, file: String) -> String {
        let maker = renderers.playback
        let material = "derivative/2\n\(source.hex)\nplayback\n\(file)\n\(maker.renditionRecipe)\n\(maker.spritesRecipe)\n\(maker.ladderRecipe)"
        return BlobHash.of(Array(material.utf8)).hex
    }

    /// Stores the made file `url` as a derivative blob; its row is returned for the job's transaction.
    private func keep(_ url: URL, of document: Document, file: String, mime: String, width: Int, height: Int) async throws(PreviewError)
        -> NewDerivative
    {
        let hash: BlobHash
        let size: Int
        do {
            let blobs = store.blobs
            let writer = try await offload.run(.writes) { try blobs.stage(fileAt: url) }
            size = writer.size
            hash = try await writer.publish(as: .derivative)
        } catch {
            throw PreviewError.storing(error, "A playback file could not be stored.")
        }
        let record = DerivativeRecord(
            key: playbackKey(document.sha256, file: file), sourceSha256: document.sha256, operation: .playback,
            parameters: file, renderer: renderers.playback.renditionRecipe, resultSha256: hash,
            width: width, height: height, createdAt: Date())
        return NewDerivative(record: record, size: size, mime: mime)
    }
}
