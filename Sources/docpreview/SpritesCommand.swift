import ArgumentParser
import Foundation
import PreviewCore
import PreviewRenderers

/// `docpreview sprites INPUT -o DIR`: a video's seek-bar thumbnails (sprite sheets + WebVTT), no store.
struct SpritesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sprites",
        abstract: "Make a video's scrubbing thumbnails: sprite sheets and the WebVTT track that points into them.",
        discussion: """
            Writes DIR/sprite-N.jpg (10×10 tiles each) and DIR/thumbnails.vtt. A tile every 5 s (longer for \
            videos over 1000 s: at most 200 tiles), each the keyframe at or before its time, reached by seeking.
            """
    )

    @Argument(help: "The video.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write the sheets and the track into (created if needed).", valueName: "dir"))
    var output: String

    @Option(help: ArgumentHelp("Tile width in pixels (80–480).", valueName: "pixels"))
    var tileWidth = 240

    @OptionGroup var validation: ValidationOptions

    @Flag(help: "Print {\"sheets\",\"tiles\",\"interval_s\",\"tile_width\",\"tile_height\",\"track\",\"ms\"} or the error object.")
    var json = false

    func validate() throws {
        guard (80...480).contains(tileWidth) else { throw ValidationError("--tile-width must be between 80 and 480.") }
    }

    func run() throws {
        let started = ContinuousClock.now
        let report = CommandReport(json: json)
        let (configuration, verdict) = try validation.settings.admit(input, reporting: report)
        var sprites = ScrubbingSprites(limits: configuration.limits)
        sprites.tileWidth = tileWidth
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("Cannot write into \(output): \(error.localizedDescription)")
        }
        let files: ScrubbingSprites.Files
        do {
            files = try sprites.write(input, kind: verdict.kind, into: output)
        } catch {
            try report.fail(error)
        }
        let track = URL(fileURLWithPath: output).appendingPathComponent(files.track).path
        try report.succeed(
            SpritesReport(
                sheets: files.sheets.map(\.name), tiles: files.tiles, intervalSeconds: files.intervalSeconds,
                tileWidth: files.tileWidth, tileHeight: files.tileHeight, track: track,
                ms: started.duration(to: .now).roundedMilliseconds),
            human: "\(track): \(files.tiles) tiles of \(files.tileWidth)×\(files.tileHeight) every "
                + "\(files.intervalSeconds) s in \(files.sheets.count) sheets")
    }
}

/// What `sprites --json` prints.
struct SpritesReport: Encodable {
    var sheets: [String]
    var tiles: Int
    var intervalSeconds: Double
    var tileWidth: Int
    var tileHeight: Int
    var track: String
    var ms: Double

    enum CodingKeys: String, CodingKey {
        case sheets, tiles, track, ms
        case intervalSeconds = "interval_s"
        case tileWidth = "tile_width"
        case tileHeight = "tile_height"
    }
}
