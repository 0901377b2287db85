import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview plays INPUT`: a highlight reel's plays (the cuts between its shots), no store.
struct PlaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plays",
        abstract: "Find the plays of a highlight video: the hard cuts and short fades between its shots.",
        discussion: """
            Decodes the whole video once on one core (only the frames others refer to) and prints each play's \
            start, end and poster time, and the video's poster as a document gets it once its plays are known \
            (the opening's frame, or a play's poster that scores better); -o writes the plays as a WebVTT chapters track, --teaser the video's \
            teaser made from them (a second of each of the first plays, silent, 320 px wide).
            """
    )

    @Argument(help: "The video.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the WebVTT chapters track here.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Write the teaser made from the plays here (an MP4).", valueName: "file"))
    var teaser: String?

    @OptionGroup var validation: ValidationOptions

    @Flag(
        help: """
            Print {"plays":[{"start","end","poster","score"}],"cuts":[{"seconds","kind"}],"poster":{"play"?,"seconds","score"},\
            "ms","teaser"?} or the error object.
            """)
    var json = false

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        let index: PlayIndexer.Index
        var made: TeaserReport?
        do throws(PreviewError) {
            let renderer = VideoRenderer(limits: configuration.limits).reading(verdict.kind)
            // The opening's poster, as the document's first thumbnail has it; its facts give the length
            // (probed only when no thumbnail could be made).
            let thumbnail = try? renderer.render(input, .thumbnail).facts
            let duration = thumbnail?.durationSeconds ?? (try? renderer.probe(input).durationSeconds)
            let seconds = PlayIndexer.seconds(limits: configuration.limits, duration: duration)
            let opening = thumbnail?.frameSeconds
            index = try PlayIndexer(limits: configuration.limits, timeoutSeconds: seconds).index(input, kind: verdict.kind, opening: opening)
            if let teaser {
                let began = ContinuousClock.now
                let spans = VideoTeaser.spans(plays: index.plays, duration: duration ?? 0)
                let written = try VideoTeaser(timeoutSeconds: configuration.limits.jobSeconds).write(
                    input, kind: verdict.kind, spans: spans, to: teaser)
                made = TeaserReport(teaser: written, ms: began.duration(to: .now).roundedMilliseconds)
            }
        } catch {
            try report.fail(error)
        }
        if let output {
            do {
                try Data(index.chapters.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                throw ValidationError("Cannot write \(output): \(error.localizedDescription)")
            }
        }
        let ms = started.duration(to: .now).roundedMilliseconds
        let lines = index.plays.enumerated().map { number, play in
            String(format: "play %d: %.2f–%.2f s, poster at %.2f s", number + 1, play.start, play.end, play.poster)
        }
        let posterLine = index.poster.map { poster in
            String(format: "poster: %@ at %.2f s (score %.2f)", poster.play.map { "play \($0)'s" } ?? "the opening's", poster.seconds, poster.score)
        }
        let teaserLine = made.map { String(format: "teaser: %.1f s, %dx%d, %d bytes, %.0f ms", $0.durationS, $0.width, $0.height, $0.size, $0.ms) }
        try report.succeed(
            PlaysReport(plays: index.plays, cuts: index.cuts, poster: index.poster, ms: ms, teaser: made),
            human: (lines + [posterLine, teaserLine].compactMap { $0 }).joined(separator: "\n"))
    }
}

/// What `plays --json` prints.
struct PlaysReport: Encodable {
    var plays: [Play]
    var cuts: [PlayIndexer.Index.Cut]
    var poster: ReelPoster?
    var ms: Double
    var teaser: TeaserReport?
}

/// The teaser `plays --teaser` wrote, and how long it took.
struct TeaserReport: Encodable {
    var width: Int
    var height: Int
    var durationS: Double
    var size: Int
    var ms: Double

    init(teaser: VideoTeaser.Teaser, ms: Double) {
        (width, height, durationS, size, self.ms) = (teaser.width, teaser.height, teaser.durationSeconds, teaser.size, ms)
    }
}
