import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview transcode INPUT -o OUT.mp4 [--height H]` or `--hls DIR`: one video's rendition or
/// adaptive ladder, no store.
struct TranscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcode",
        abstract: "Make a video's rendition that plays on iPhones and in browsers (H.264/AAC MP4, moov first).",
        discussion: """
            Streams that already play are copied (a remux); the others are re-encoded with libx264 \
            and AAC at the configuration's `renditions` settings (default 720p on the short side, \
            preset veryfast, CRF 23). With --height, a larger source is re-encoded down to that size. \
            With --hls DIR instead of -o, an HLS ladder: DIR/master.m3u8 over 360p, 720p and 1080p rungs \
            (as the source allows), each one fragmented MP4 whose playlist lists 2 s segments as byte ranges.
            """
    )

    @Argument(help: "The video to transcode.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the MP4.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Write an HLS ladder into this folder instead (replaced when complete).", valueName: "dir"))
    var hls: String?

    @Option(help: ArgumentHelp("Short side of the picture in pixels; a larger source is scaled down.", valueName: "pixels"))
    var height: Int?

    @OptionGroup var validation: ValidationOptions

    @Flag(
        help: ArgumentHelp(
            "Print the rendition ({\"playback\",\"video\",\"audio\",\"width\",\"height\",\"duration_s\",\"codecs\",\"size\",\"ms\"}) or the error "
                + "object.")
    )
    var json = false

    func validate() throws {
        guard (output == nil) != (hls == nil) else { throw ValidationError("Give either -o FILE or --hls DIR.") }
    }

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        var settings = configuration.renditions
        if let height {
            settings.height = height
            if let problem = settings.problem { throw ValidationError(problem) }
        }
        let transcoding = VideoTranscoding(limits: configuration.limits, settings: settings, timeoutSeconds: validation.timeout)
        if let hls {
            let rungs: [VideoLadder.Rung]
            do {
                rungs = try VideoLadder(transcoding: transcoding).make(input, kind: verdict.kind, into: hls)
            } catch {
                try report.fail(error)
            }
            let master = URL(fileURLWithPath: hls).appendingPathComponent(VideoLadder.masterName).path
            try report.succeed(
                LadderReport(master: master, rungs: rungs, ms: started.duration(to: .now).roundedMilliseconds),
                human: "\(master): " + rungs.map { "\($0.name) \($0.width)×\($0.height) \($0.bandwidth / 1000) kb/s" }.joined(separator: ", "))
            return
        }
        let output = output ?? ""
        let rendition: VideoTranscoding.Rendition
        do {
            rendition = try transcoding.transcode(input, kind: verdict.kind, to: output, shrink: height != nil)
        } catch {
            try report.fail(error)
        }
        try report.succeed(
            TranscodeReport(rendition: rendition, ms: started.duration(to: .now).roundedMilliseconds),
            human: "\(output): \(rendition.playback.rawValue), video \(rendition.video), audio \(rendition.audio ?? "none"), "
                + "\(rendition.width)×\(rendition.height), \(rendition.codecs), \(rendition.size) bytes")
    }
}

/// What `transcode --hls --json` prints.
struct LadderReport: Encodable {
    var master: String
    var rungs: [VideoLadder.Rung]
    var ms: Double
}

/// What `transcode --json` prints.
struct TranscodeReport: Encodable {
    var rendition: VideoTranscoding.Rendition
    var ms: Double

    func encode(to encoder: any Encoder) throws {
        try rendition.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ms, forKey: .ms)
    }

    enum CodingKeys: String, CodingKey { case ms }
}
