/// How a video reaches the apps' players (AVPlayer on iOS, the browser's `<video>`).
package enum Playback: String, Sendable, Codable, CaseIterable {
    /// The original plays as it is: H.264 or HEVC with AAC, MP3, ALAC or no audio, in MP4 or
    /// QuickTime. (HEVC still gets an H.264 rendition: most browsers cannot decode it.)
    case direct
    /// The streams play but the container does not: copied into MP4 without re-encoding.
    case remux
    /// Some stream must be re-encoded (the other, when playable, is copied).
    case transcode
}
