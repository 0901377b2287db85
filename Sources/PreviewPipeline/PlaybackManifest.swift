import PreviewCore
import PreviewDomain
import PreviewRenderers

/// What a video's playback job made, stored as a small JSON derivative of its own: the rendition
/// (or why there is none), the HLS ladder of a long or large video (or why there is none) and the
/// scrubbing thumbnails, each file by its blob. The API lists and serves them from it; its cache
/// key (source, recipes) is the job's.
package struct PlaybackManifest: Sendable, Codable, Equatable {
    package struct Rendition: Sendable, Codable, Equatable {
        /// The name in its URL (`/renditions/mp4`).
        package var name: String
        package var mime: String
        /// RFC 6381 (`avc1.64001f,mp4a.40.2`).
        package var codecs: String
        package var width: Int
        package var height: Int
        /// Bits per second over the whole file.
        package var bitrate: Int
        package var size: Int
        package var durationSeconds: Double
        package var sha256: BlobHash
    }

    package struct Trickplay: Sendable, Codable, Equatable {
        /// The track's file name; it names the sheets relative to itself.
        package static let trackName = ScrubbingSprites.trackName
        /// The WebVTT track and the sheets it names, by file name.
        package var track: BlobHash
        package var sheets: [String: BlobHash]
        /// The tiles' times and places on the sheets.
        package var layout: ScrubbingSprites.Files
    }

    package struct Ladder: Sendable, Codable, Equatable {
        /// The master playlist's file name; it names the rungs' playlists relative to itself.
        package static let masterName = VideoLadder.masterName
        package var rungs: [VideoLadder.Rung]
        /// The master, and each rung's playlist and media file, by file name.
        package var files: [String: BlobHash]
        /// Bytes over all its files.
        package var size: Int
    }

    package struct Plays: Sendable, Codable, Equatable {
        /// The chapters track's file name.
        package static let chaptersName = PlayIndexer.Index.chaptersName
        package var plays: [Play]
        package var cuts: [PlayIndexer.Index.Cut]
        /// The WebVTT chapters track, a cue per play.
        package var chapters: BlobHash
        /// The video's poster chosen among the opening's frame and the first plays' (nil in
        /// manifests made before it was).
        package var poster: ReelPoster?
    }

    package struct Teaser: Sendable, Codable, Equatable {
        /// Its file name.
        package static let fileName = "teaser.mp4"
        package var file: BlobHash
        package var made: VideoTeaser.Teaser
    }

    package var rendition: Rendition?
    /// Why the video has no rendition although it needs one (too long, too large, unreadable).
    package var renditionError: ErrorEnvelope.Body?
    package var ladder: Ladder?
    /// Why a video long or large enough for a ladder has none.
    package var ladderError: ErrorEnvelope.Body?
    package var trickplay: Trickplay?
    /// The plays of a highlight reel (nil in manifests made before they were looked for).
    package var plays: Plays?
    /// Why the video has no play index (unreadable to its end, too slow).
    package var playsError: ErrorEnvelope.Body?
    /// The teaser for the list's cards (nil in manifests made before teasers), or why there is none.
    package var teaser: Teaser?
    package var teaserError: ErrorEnvelope.Body?

    /// Its file name, and its derivative row's parameters.
    package static let fileName = "playback.json"
}
