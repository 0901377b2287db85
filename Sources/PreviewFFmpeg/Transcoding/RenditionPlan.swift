import PreviewCore

/// What a video needs: the playback decision for the original, and for its rendition what
/// happens to each stream (copied, or re-encoded) and the picture's size.
package struct RenditionPlan: Sendable {
    package enum Action: String, Sendable { case copy, encode }

    package let playback: Playback
    package let video: VideoStream
    package let audio: AudioStream?
    package let videoAction: Action
    /// Nil when the rendition has no audio (the source has none).
    package let audioAction: Action?
    /// The rendition's displayed size (rotation applied, square pixels).
    package let width: Int
    package let height: Int

    /// Whether the original needs a rendition at all: every decision but `direct`, and HEVC,
    /// which Apple's players play and most browsers do not.
    package var needsRendition: Bool { playback != .direct || video.codecName == "hevc" }

    /// The plan for `input`'s best video stream and its default audio, at `settings`; a source
    /// whose short side is above `settings.height` is re-encoded smaller when `shrink` is set
    /// (else a playable stream is copied at its own size). `reencode` re-encodes the video whatever
    /// it is, and copies only AAC audio (an HLS rung: keyframes on the segment grid, audio that
    /// every HLS player takes in fMP4).
    package init?(_ input: MediaInput, settings: RenditionSettings, shrink: Bool = false, reencode: Bool = false) {
        guard let video = input.bestVideoStream(), video.width > 0, video.height > 0 else { return nil }
        let audio = input.bestAudioStream()
        self.video = video
        self.audio = audio
        let inQuickTime = input.formatName.hasPrefix("mov,mp4")
        let playsEverywhere = video.codecName == "h264" && ["yuv420p", "yuvj420p"].contains(video.pixelFormat) && video.dynamicRange == .sdr
        let audioPlays = audio.map { ["aac", "mp3", "alac"].contains($0.codecName) } ?? true
        let audioCopies = audio.map { ["aac", "mp3"].contains($0.codecName) } ?? true
        playback =
            inQuickTime && (playsEverywhere || video.codecName == "hevc") && audioPlays
            ? .direct
            : playsEverywhere && audioCopies ? .remux : .transcode

        let display = video.displaySize
        let shortSide = min(display.width, display.height)
        let target = Double(min(settings.height, Int(shortSide.rounded())))
        let smaller = shrink && shortSide.rounded() > Double(settings.height)
        videoAction = playsEverywhere && !smaller && !reencode && video.pixelAspect == 1 ? .copy : .encode
        audioAction = audio.map { audio in (reencode ? audio.codecName == "aac" : audioCopies) ? .copy : .encode }
        if videoAction == .copy {
            width = Int(display.width.rounded())
            height = Int(display.height.rounded())
        } else {
            let scale = target / shortSide
            width = Self.even(display.width * scale)
            height = Self.even(display.height * scale)
        }
    }

    /// The nearest even number of pixels, at least 2 (4:2:0 halves both sides).
    private static func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded()) * 2) }
}
