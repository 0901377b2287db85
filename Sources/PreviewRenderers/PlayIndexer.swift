import PreviewCore
import PreviewFFmpeg

/// The plays of a highlight reel: one skimming pass over the whole video (only the frames others
/// refer to, without deblocking; see ``VideoFrameReader/init(input:stream:maxPackets:skimming:)``)
/// takes each frame's ``FrameSignature``, and every half second a small frame's ``FrameQuality``;
/// ``PlayCuts`` finds the cuts, each play's poster is its best scored frame (its look times how
/// typical it is of the play) and ``ReelPoster`` chooses the video's poster among the opening's
/// frame and the first plays' posters. One decoder thread: the cost is the decode of the video,
/// about a tenth of its length for 1080p.
package struct PlayIndexer: Sendable {
    package var limits: Limits
    /// Wall-clock seconds it may take (a video's length sets it; see ``PlaybackMaker``).
    package var timeoutSeconds: Double
    /// Width of the frames whose look is scored for posters.
    static let posterWidth = 320
    static let posterInterval = 0.5
    /// Videos up to this long are indexed (a reel lasts minutes; a whole game is no reel), keeping
    /// at most ``maxFramesPerSecond`` frames a second: at most ~100 MB of frames.
    static let maxSeconds = 30.0 * 60
    static let maxFramesPerSecond = 30.0
    /// At most this many plays (the strongest cuts are kept): a reel has tens, a video that cuts
    /// every second is not a reel, and its index stays small.
    static let maxPlays = 500

    /// Wall-clock seconds finding the plays of `duration` seconds of video may take: the job time,
    /// plus its length (a skimming decode of 1080p runs at 10–20× real time on one core).
    package static func seconds(limits: Limits, duration: Double?) -> Double {
        limits.jobSeconds + max(0, duration ?? 0)
    }

    package init(limits: Limits, timeoutSeconds: Double) {
        self.limits = limits
        self.timeoutSeconds = timeoutSeconds
    }

    /// What it found: the plays in order, the cuts between them, and the video's poster.
    package struct Index: Sendable, Codable, Equatable {
        package struct Cut: Sendable, Codable, Equatable {
            package var seconds: Double
            package var kind: PlayCuts.Kind
        }
        package var plays: [Play]
        package var cuts: [Cut]
        /// The video's poster among the opening's frame and the first plays' (nil in manifests
        /// made before it was chosen, or when no frame was looked at).
        package var poster: ReelPoster?

        /// The chapters track's file name.
        package static let chaptersName = "chapters.vtt"

        /// The plays as a WebVTT chapters track (`<track kind="chapters">`): a cue per play, `Play N`.
        package var chapters: String {
            plays.enumerated().reduce("WEBVTT\n") { track, item in
                let (number, play) = (item.offset + 1, item.element)
                return track
                    + "\nplay-\(number)\n\(ScrubbingSprites.timestamp(play.start)) --> \(ScrubbingSprites.timestamp(play.end))\nPlay \(number)\n"
            }
        }

        /// Whether a child's answer could be an index: plays that tile the video in order, within the bounds.
        var isPlausible: Bool {
            guard let first = plays.first, first.start == 0, plays.count <= maxPlays, cuts.count == plays.count - 1 else { return false }
            return plays.allSatisfy {
                $0.start.isFinite && $0.end.isFinite && $0.start < $0.end && ($0.start...$0.end).contains($0.poster)
                    && $0.score.map { (0...1).contains($0) } != false
            }
                && zip(plays, plays.dropFirst()).allSatisfy { $0.end == $1.start }
                && poster.map { poster in
                    poster.seconds.isFinite && (0...1).contains(poster.score) && (0...(plays.last?.end ?? 0)).contains(poster.seconds)
                        && poster.play.map { (1...plays.count).contains($0) } != false
                } != false
        }
    }

    /// The plays of the video at `path`, read with `kind`'s demuxer; `opening` is the time of the
    /// poster the opening's rule chose (``VideoRenderer``), scored beside the plays' posters.
    package func index(_ path: String, kind: FileKind?, opening: Double? = nil) throws(PreviewError) -> Index {
        let input = try VideoRenderer.openVideo(path, kind: kind, timeoutSeconds: timeoutSeconds, toMake: "a play index") { error in
            PreviewError(.corrupt, "The video could not be read; it may be damaged or truncated.", detail: error.description)
        }
        guard let stream = input.bestVideoStream(), stream.width > 0, stream.height > 0 else {
            throw PreviewError(.noVideoStream, "The file has no video to index.")
        }
        if stream.declaresEncryption { throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it cannot be indexed.") }
        if stream.width * stream.height > limits.maxPixels {
            throw PreviewError(.tooManyPixels, "The video is \(stream.width)×\(stream.height), larger than any frame we decode.")
        }
        if let duration = input.durationSeconds, duration > Self.maxSeconds {
            throw PreviewError(
                .tooLong, "The video lasts \(Int(duration / 60)) min; plays are found in videos of up to \(Int(Self.maxSeconds / 60)) min.")
        }
        let posterHeight = max(2, Int((Double(Self.posterWidth) * Double(stream.height) / Double(stream.width) / 2).rounded()) * 2)
        // A packet budget from the declared length (300 a second is a high frame rate with its audio's share).
        let budget = 1_000 + 300 * Int(min(input.durationSeconds ?? 0, Self.maxSeconds))
        var signatures: [FrameSignature] = []
        var looks: [Look] = []
        var openingLook: Look?
        do throws(FFmpegError) {
            let reader = try VideoFrameReader(input: input, stream: stream, maxPackets: budget, skimming: true)
            while let seconds = try reader.nextFrame() {
                if reader.sawEncryptedPacket { throw .encrypted }
                // Frames out of order (a damaged stream) and those past the frame rate kept are left
                // out; the signatures stay in time order. A video longer than it said stops at the bound.
                if let last = signatures.last, seconds < last.seconds + 1 / (Self.maxFramesPerSecond + 1) { continue }
                if seconds > Self.maxSeconds { break }
                let signature = try reader.currentSignature(seconds: seconds)
                signatures.append(signature)
                func look() throws(FFmpegError) -> Look {
                    Look(signature: signature, quality: FrameQuality(try reader.currentFrame(width: Self.posterWidth, height: posterHeight)))
                }
                if seconds >= (looks.last?.seconds ?? -Double.infinity) + Self.posterInterval { looks.append(try look()) }
                // The opening's frame, or the first kept after it (the skimming skips frames no other refers to).
                if let opening, openingLook == nil, seconds >= opening - 0.001 { openingLook = try look() }
            }
        } catch {
            if error.isEncrypted { throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it cannot be indexed.") }
            if error.isInterrupted {
                throw PreviewError(.timeout, "Indexing the plays took longer than \(Int(timeoutSeconds)) s.", detail: error.description)
            }
            throw PreviewError(.corrupt, "The video could not be read to its end; it may be damaged.", detail: error.description)
        }
        guard let last = signatures.last else { throw PreviewError(.corrupt, "The video has no frame that can be decoded.") }
        let duration = max(input.durationSeconds ?? 0, last.seconds)
        var cuts = PlayCuts.cuts(in: signatures).filter { $0.seconds < duration }
        if cuts.count >= Self.maxPlays {
            cuts = Array(cuts.sorted { $0.strength > $1.strength }.prefix(Self.maxPlays - 1)).sorted { $0.seconds < $1.seconds }
        }
        var openingPoster: ReelPoster?
        let plays = PlayCuts.plays(between: cuts, duration: duration) { play in
            // The best scored frame well inside the play (its first and last instants may hold a transition).
            let margin = min(0.3, (play.upperBound - play.lowerBound) / 4)
            let inside = looks.filter { $0.seconds >= play.lowerBound + margin && $0.seconds <= play.upperBound - margin }
            guard let mean = ReelPoster.mean(of: inside.map(\.signature)) else { return nil }
            if let look = openingLook, play.contains(look.seconds) {
                openingPoster = ReelPoster(play: nil, seconds: opening ?? look.seconds, score: look.score(mean: mean))
            }
            return inside.map { ($0.seconds, $0.score(mean: mean)) }.max { $0.1 < $1.1 }
        }
        return Index(
            plays: plays, cuts: cuts.map { Index.Cut(seconds: $0.seconds, kind: $0.kind) },
            poster: ReelPoster.choose(opening: openingPoster, plays: plays))
    }

    /// A frame looked at for a poster.
    struct Look {
        var signature: FrameSignature
        var quality: FrameQuality
        var seconds: Double { signature.seconds }

        /// Its look times how typical it is of its play (whose `mean` frame is given), 0–1.
        func score(mean: FrameSignature) -> Double {
            quality.score * ReelPoster.typicality(signature, mean: mean)
        }
    }
}
