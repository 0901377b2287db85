import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview clip INPUT --start S --end E -o OUT`: a frame-exact part of a video, no re-encode.
struct ClipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clip",
        abstract: "Cut a part of a video out by stream copy: frame-exact, never re-encoded.",
        discussion: """
            Copies the packets from the keyframe before --start to --end into an MP4 whose edit lists show \
            exactly the frames from --start to --end: no quality is lost and it takes as long as copying the part.
            """
    )

    @Argument(help: "The video.")
    var input: String

    @Option(help: ArgumentHelp("Where the clip starts, in seconds.", valueName: "seconds"))
    var start: Double

    @Option(help: ArgumentHelp("Where the clip ends, in seconds (past the video's end: its end).", valueName: "seconds"))
    var end: Double

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the clip here (an MP4).", valueName: "file"))
    var output: String

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"start\",\"end\",\"keyframe\",\"size\",\"ms\"} or the error object.")
    var json = false

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (_, verdict) = try validation.settings.admit(input, reporting: report)
        let clip: VideoClipping.Clip
        do throws(PreviewError) {
            clip = try VideoClipping().clip(input, kind: verdict.kind, from: start, to: end, into: output)
        } catch {
            try report.fail(error)
        }
        let ms = started.duration(to: .now).roundedMilliseconds
        let human = String(
            format: "%.3f–%.3f s (%.3f s, from the keyframe at %.3f s), %d bytes → %@", clip.start, clip.end, clip.durationSeconds,
            clip.keyframe, clip.size, output)
        try report.succeed(ClipReport(clip: clip, ms: ms), human: human)
    }
}

/// What `clip --json` prints.
struct ClipReport: Encodable {
    var start: Double
    var end: Double
    var keyframe: Double
    var size: Int
    var ms: Double

    init(clip: VideoClipping.Clip, ms: Double) {
        (start, end, keyframe, size, self.ms) = (clip.start, clip.end, clip.keyframe, clip.size, ms)
    }
}
