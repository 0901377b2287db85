import PreviewCore
import PreviewFFmpeg

/// Video posters through FFmpeg: decodes from the start (cost independent of length), takes the
/// first frame that shows something (``FrameQuality``: lit, with contrast, not a title card's flat
/// ground, not blurred, and past any fade) within the first 10 s — frame by frame for the first
/// ones, then by seeking to later keyframes — else the best scored frame it saw; or the frame at
/// the time a request names (a reel's poster chosen among its plays, ``ReelPoster``). Honours the
/// display matrix, and refuses DRM-protected streams and absurd dimensions before decoding.
public struct VideoRenderer: Renderer {
    /// Pixel limit, and the job time enforced by FFmpeg's interrupt callback and between packets.
    package var limits: Limits
    /// A poor opening is looked past for at most this much stream time…
    package var skipSeconds = 10.0
    /// …decoding the first this many frames one by one (a short fade is found to the frame)…
    package var skipFrames = 48
    /// …then looking at these times: by seeking when the container's index has a keyframe between
    /// what was decoded and the target (phones write one every second or two), else by decoding on.
    /// Bounded by ``skipSeconds`` of stream time (and the job's deadline), flat in the video's length.
    static let seekTargets: [Double] = [2, 3, 4.5, 6, 8, 10]
    /// The container detection found; FFmpeg reads the file with that demuxer only. Nil lets
    /// FFmpeg probe, among the demuxers of ``MediaInput/demuxers`` only.
    package var container: FileKind?

    /// A poster found after a poor opening must look the same this much later (not inside a fade).
    static let settleSeconds = 0.25

    /// Formatted once, on first use (which opens the libraries): versions do not change while the process runs.
    public var version: String { Self.libraryVersions }
    static let libraryVersions = "video/3 \(FFmpegLibrary.versions), \(Encoding.pixelEncoders)"

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// This renderer reading `kind` (a video or audio kind) with its own demuxer only.
    package func reading(_ kind: FileKind) -> VideoRenderer {
        var renderer = self
        renderer.container = kind
        return renderer
    }

    /// The FFmpeg demuxer for each container kind; nil for kinds that are not media.
    static func demuxer(for kind: FileKind) -> String? {
        switch kind {
        case .mp4, .mov, .threeGP, .f4v, .m4a: "mov"
        case .avi: "avi"
        case .webm, .mkv: "matroska"
        case .flv: "flv"
        case .asf: "asf"
        case .mpegPS: "mpeg"
        case .mpegTS: "mpegts"
        case .ogv, .oga: "ogg"
        case .ivf: "ivf"
        case .mp3: "mp3"
        case .wav: "wav"
        case .flac: "flac"
        case .aac: "aac"
        case .amr: "amr"
        default: nil
        }
    }

    /// Opens the video at `path` to make `what` of (renditions, thumbnails): with `kind`'s demuxer
    /// only (nil probes among ``MediaInput/demuxers``); a kind that cannot hold video is
    /// `no_video_stream` before FFmpeg sees it, and FFmpeg's refusal is told by `mapping`.
    static func openVideo(
        _ path: String, kind: FileKind?, timeoutSeconds: Double?, toMake what: String,
        mapping: (FFmpegError) -> PreviewError
    ) throws(PreviewError) -> MediaInput {
        let demuxer = kind.flatMap(demuxer(for:))
        if let kind, demuxer == nil || holdsAudioOnly(kind) {
            throw PreviewError(.noVideoStream, "\(kind.label) has no video to make \(what) of.")
        }
        do {
            return try MediaInput(path: path, format: demuxer, timeoutSeconds: timeoutSeconds)
        } catch {
            throw mapping(error)
        }
    }

    /// Raw audio streams and their one-stream containers cannot carry video (an MP3's cover art is
    /// not a video): they never reach FFmpeg.
    static func holdsAudioOnly(_ kind: FileKind) -> Bool {
        [.mp3, .wav, .flac, .aac, .amr].contains(kind)
    }

    public func probe(_ path: String) throws(PreviewError) -> MediaFacts {
        let input = try open(path)
        let stream = try videoStream(of: input)
        let display = stream.displaySize
        var facts = MediaFacts(
            width: Int(display.width.rounded()), height: Int(display.height.rounded()),
            durationSeconds: input.durationSeconds, codec: stream.codecName, rotation: stream.rotation)
        facts.playback = RenditionPlan(input, settings: RenditionSettings())?.playback
        return facts
    }

    public func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        let input = try open(path)
        let stream = try videoStream(of: input)
        let display = stream.displaySize
        let output = request.fitted(width: display.width, height: display.height, upscale: false)
        // Frames are scaled before rotation, so a quarter turn swaps the scaled size.
        let scaled = stream.rotation % 180 == 0 ? output : (width: output.height, height: output.width)

        let poster =
            if let seconds = request.frameSeconds {
                try frame(input, stream, at: seconds, width: scaled.width, height: scaled.height)
            } else {
                try poster(input, stream, width: scaled.width, height: scaled.height)
            }
        var rendered = try Encoding.encode(poster.pixels, rotation: stream.rotation, request)
        rendered.facts = MediaFacts(
            width: Int(display.width.rounded()), height: Int(display.height.rounded()),
            durationSeconds: input.durationSeconds, codec: stream.codecName,
            rotation: stream.rotation, frameSeconds: poster.seconds)
        rendered.facts.posterScore = (poster.quality.score * 100).rounded() / 100
        rendered.facts.playback = RenditionPlan(input, settings: RenditionSettings())?.playback
        return rendered
    }

    /// A frame considered for the poster, with its time and what it looks like.
    private struct Candidate {
        var pixels: PixelBuffer
        var seconds: Double
        var quality: FrameQuality
    }

    /// The poster: the first frame that ``FrameQuality/isPoster``. Once the opening has shown one
    /// that is not (black, white, a title card, a blur), a frame must also be settled: the frame
    /// ``settleSeconds`` later has the same light and contrast, so a fade's middle is never chosen.
    /// The first ``skipFrames`` frames are looked at one by one (a short fade is found to the
    /// frame), then the ``seekTargets``, all within ``skipSeconds``; when none will do, the best
    /// scored of those seen (the first, when all are blank).
    private func poster(_ input: MediaInput, _ stream: VideoStream, width: Int, height: Int) throws(PreviewError) -> Candidate {
        do {
            let reader = try VideoFrameReader(input: input, stream: stream)
            var best: Candidate?
            var waiting: Candidate?  // a poster, until the frame that settles it
            var openedPoorly = false
            var reached = 0.0
            var ended = true
            while let seconds = try reader.nextFrame() {
                if reader.sawEncryptedPacket { throw encrypted() }
                let pixels = try reader.currentFrame(width: width, height: height)
                let frame = Candidate(pixels: pixels, seconds: seconds, quality: FrameQuality(pixels))
                if let poster = waiting, seconds >= poster.seconds + Self.settleSeconds {
                    if poster.quality.isSettled(against: frame.quality) { return poster }
                    waiting = nil
                }
                if frame.quality.score > best?.quality.score ?? -1 { best = frame }
                if frame.quality.isPoster {
                    if !openedPoorly { return frame }
                    if waiting == nil { waiting = frame }
                } else {
                    openedPoorly = true
                    waiting = nil
                }
                reached = seconds
                if seconds >= skipSeconds || (reader.framesDecoded >= skipFrames && waiting == nil) { ended = false; break }
            }
            if reader.sawEncryptedPacket { throw encrypted() }
            if let waiting { return waiting }  // the video ended before anything could unsettle it
            guard let seen = best else { throw PreviewError(.corrupt, "The video has no frame that can be decoded.") }
            if !ended, let later = try laterPoster(reader, after: reached, best: seen, width: width, height: height) { return later }
            return seen
        } catch let error as PreviewError {
            throw error
        } catch let error as FFmpegError {
            throw mapped(error)
        } catch {
            throw PreviewError(.internal, "The video could not be decoded.", detail: "\(error)")
        }
    }

    /// The frame shown at `seconds` (the first at or after it; when the video ends sooner, the
    /// first decoded), decoded from the keyframe before it.
    private func frame(_ input: MediaInput, _ stream: VideoStream, at seconds: Double, width: Int, height: Int) throws(PreviewError)
        -> Candidate
    {
        do {
            let reader = try VideoFrameReader(input: input, stream: stream)
            if seconds > 0, reader.keyframeSeconds(atOrBefore: seconds) != nil { _ = reader.seek(toSeconds: seconds) }
            var last: Candidate?
            while let shown = try reader.nextFrame() {
                if reader.sawEncryptedPacket { throw encrypted() }
                // Frames before the target are decoded (they are referred to) but not scaled.
                guard shown >= seconds - 0.001 || last == nil else { continue }
                let pixels = try reader.currentFrame(width: width, height: height)
                last = Candidate(pixels: pixels, seconds: shown, quality: FrameQuality(pixels))
                if shown >= seconds - 0.001 { break }
            }
            guard let found = last else { throw PreviewError(.corrupt, "The video has no frame that can be decoded.") }
            return found
        } catch let error as PreviewError {
            throw error
        } catch let error as FFmpegError {
            throw mapped(error)
        } catch {
            throw PreviewError(.internal, "The video could not be decoded.", detail: "\(error)")
        }
    }

    /// The frame at the first target past `reached` that is a settled poster; else the best scored
    /// of `best` and the targets' frames, if any of them scored more; nil when neither.
    private func laterPoster(_ reader: VideoFrameReader, after reached: Double, best: Candidate, width: Int, height: Int)
        throws -> Candidate?
    {
        var position = reached
        var better: Candidate?
        func frame(at target: Double) throws -> Candidate? {
            while let seconds = try reader.nextFrame() {
                position = seconds
                if seconds >= target - 0.001 {
                    let pixels = try reader.currentFrame(width: width, height: height)
                    return Candidate(pixels: pixels, seconds: seconds, quality: FrameQuality(pixels))
                }
            }
            return nil  // the stream ended before the target
        }
        for target in Self.seekTargets where target > position && target <= skipSeconds {
            // Seek only past what was decoded already: a keyframe behind us would mean decoding it all again.
            if let keyframe = reader.keyframeSeconds(atOrBefore: target), keyframe > position + 0.001 {
                guard reader.seek(toSeconds: target) else { break }
            }
            let found = try frame(at: target)
            if reader.sawEncryptedPacket { throw encrypted() }
            guard let candidate = found else { break }
            if candidate.quality.score > (better ?? best).quality.score { better = candidate }
            guard candidate.quality.isPoster else { continue }
            guard let settling = try frame(at: candidate.seconds + Self.settleSeconds) else { return candidate }
            if candidate.quality.isSettled(against: settling.quality) { return candidate }
        }
        return better
    }

    private func open(_ path: String) throws(PreviewError) -> MediaInput {
        var format: String?
        if let container {
            if Self.holdsAudioOnly(container) { throw noVideo() }
            guard let demuxer = Self.demuxer(for: container) else {
                throw PreviewError(.unsupportedType, "No video preview is made for \(container.label).")
            }
            format = demuxer
        }
        do {
            return try MediaInput(path: path, format: format, timeoutSeconds: limits.jobSeconds)
        } catch {
            throw mapped(error)
        }
    }

    private func videoStream(of input: MediaInput) throws(PreviewError) -> VideoStream {
        guard let stream = input.bestVideoStream() else { throw noVideo() }
        guard stream.width > 0, stream.height > 0 else {
            throw PreviewError(.corrupt, "The video stream declares no picture size.")
        }
        if stream.width * stream.height > limits.maxPixels || max(stream.width, stream.height) > 32_768 {
            throw PreviewError(.tooManyPixels, "The video is \(stream.width)×\(stream.height), larger than any frame we decode.")
        }
        if stream.declaresEncryption { throw encrypted() }
        return stream
    }

    private func noVideo() -> PreviewError {
        PreviewError(.noVideoStream, "The file has no video to preview (audio only, or no streams).")
    }

    private func encrypted() -> PreviewError {
        PreviewError(.encrypted, "The video is DRM-protected (encrypted); it cannot be previewed.")
    }

    private func mapped(_ error: FFmpegError) -> PreviewError {
        if error.isInterrupted {
            return PreviewError(.timeout, "Reading the video took longer than \(Int(limits.jobSeconds)) s.", detail: error.description)
        }
        if error.isMissingDecoder {
            return PreviewError(.unsupportedType, "This video's codec is not supported.", detail: error.description)
        }
        return PreviewError(.corrupt, "The video could not be read; it may be damaged or truncated.", detail: error.description)
    }
}
