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
            start, end and poster time; -o writes the plays as a WebVTT chapters track.
            """
    )

    @Argument(help: "The video.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the WebVTT chapters track here.", valueName: "file"))
    var output: String?

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"plays\":[{\"start\",\"end\",\"poster\"}],\"cuts\":[{\"seconds\",\"kind\"}],\"ms\"} or the error object.")
    var json = false

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        let index: PlayIndexer.Index
        do throws(PreviewError) {
            let duration = try? VideoRenderer(limits: configuration.limits).probe(input).durationSeconds
            let seconds = PlayIndexer.seconds(limits: configuration.limits, duration: duration)
            index = try PlayIndexer(limits: configuration.limits, timeoutSeconds: seconds).index(input, kind: verdict.kind)
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
        try report.succeed(PlaysReport(plays: index.plays, cuts: index.cuts, ms: ms), human: lines.joined(separator: "\n"))
    }
}

/// What `plays --json` prints.
struct PlaysReport: Encodable {
    var plays: [Play]
    var cuts: [PlayIndexer.Index.Cut]
    var ms: Double
}
