import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Reels open with black, a title card, a fade from white or a blurred pan before the action: the
/// poster is none of those. Each video is made by the ffmpeg CLI (3 s of opening, then a fractal
/// zoom), and the chosen poster is checked by the ffmpeg CLI's own filters, not by ours.
@Suite(.blocking) struct VideoPosterTests {
    enum Opening: String, CaseIterable {
        case black, titleCard, fadeFromWhite, blurredPan
        /// The action alone: the fade's video without its fade.
        case none
    }

    /// The opening's seconds; the action starts there (a fade from white ends there).
    static let openingSeconds = 3.0

    /// `opening`, then the action, 640 × 360 at 30 fps; a keyframe every second (as phones write
    /// them) or x264's default (every 250 frames).
    static func video(_ opening: Opening, keyframeEverySecond: Bool, in folder: TemporaryFolder) throws -> URL {
        let output = folder.url.appendingPathComponent("\(opening.rawValue)-\(keyframeEverySecond).mp4")
        let size = "size=640x360:rate=30"
        let action = "mandelbrot=\(size)"
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let graph: [String] =
            switch opening {
            case .black:
                [
                    "-f", "lavfi", "-i", "color=black:\(size):duration=3", "-f", "lavfi", "-i", action,
                    "-filter_complex", "[1]trim=duration=4,setpts=PTS-STARTPTS[a];[0][a]concat=n=2:v=1"
                ]
            case .titleCard:
                [
                    "-f", "lavfi", "-i", "color=c=navy:\(size):duration=3", "-f", "lavfi", "-i", action, "-filter_complex",
                    "[0]drawtext=fontfile=\(font):text='STATE CHAMPIONSHIP 2026':fontcolor=white:fontsize=36:x=(w-tw)/2:y=(h-th)/2,"
                        + "drawtext=fontfile=\(font):text='Jordan Lee #23':fontcolor=yellow:fontsize=24:x=(w-tw)/2:y=h/2+40[t];"
                        + "[1]trim=duration=4,setpts=PTS-STARTPTS[a];[t][a]concat=n=2:v=1"
                ]
            case .fadeFromWhite:
                ["-f", "lavfi", "-i", action, "-vf", "trim=duration=7,fade=in:st=0:d=3:color=white"]
            case .none:
                ["-f", "lavfi", "-i", action, "-vf", "trim=duration=7"]
            case .blurredPan:
                [
                    "-f", "lavfi", "-i", action, "-filter_complex",
                    "[0]split[o][s];[o]trim=duration=3,boxblur=10:2,crop=480:270:x=t*40:y=20,scale=640:360[b];"
                        + "[s]trim=start=3:duration=4,setpts=PTS-STARTPTS[a];[b][a]concat=n=2:v=1"
                ]
            }
        try ffmpeg(
            ["-v", "error", "-y"] + graph + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
                + (keyframeEverySecond ? ["-g", "30"] : []) + [output.path])
        return output
    }

    @Test(arguments: [Opening.black, .titleCard, .fadeFromWhite, .blurredPan], [true, false])
    func thePosterIsNotTheOpening(_ opening: Opening, keyframeEverySecond: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.video(opening, keyframeEverySecond: keyframeEverySecond, in: folder)
        let image = try Renderers().renderer(for: .mp4)!.render(file.path, RenderRequest())
        let chosen = try #require(image.facts.frameSeconds)
        let poster = folder.url.appendingPathComponent("poster.jpg")
        try Data(image.bytes).write(to: poster)
        // The same moment of the opening, scaled as the poster is: what the poster must not look like.
        let openingFrame = try Self.frame(of: file, at: 1.5, in: folder)
        let label = "\(opening) (keyframe every second: \(keyframeEverySecond)): chose \(chosen) s"

        #expect(chosen >= Self.openingSeconds - 0.05 && chosen <= Self.openingSeconds + 3, "\(label)")
        #expect(try !Self.isBlack(poster), "\(label): blackdetect finds the poster black")
        #expect(try (image.facts.posterScore ?? 0) > 0.5, "\(label): scored \(String(describing: image.facts.posterScore))")
        switch opening {
        case .black, .titleCard:
            #expect(try Self.isBlack(openingFrame), "\(opening): blackdetect should find the opening dark")
        case .fadeFromWhite:
            // The action's own light at that moment, without the fade.
            let action = try Self.video(.none, keyframeEverySecond: keyframeEverySecond, in: folder)
            let plain = try Self.frame(of: action, at: chosen, in: folder)
            let (posterLuma, plainLuma) = (try Self.meanLuma(poster), try Self.meanLuma(plain))
            #expect(abs(posterLuma - plainLuma) <= 6, "\(label): mean luma \(posterLuma), the action's \(plainLuma)")
            #expect(try Self.meanLuma(openingFrame) > plainLuma + 30, "the fade's middle should be lighter")
        case .none:
            break
        case .blurredPan:
            let (posterBlur, openingBlur) = (try Self.blur(poster), try Self.blur(openingFrame))
            #expect(posterBlur < openingBlur * 0.6, "\(label): blurdetect \(posterBlur), the opening's \(openingBlur)")
        }
    }

    /// A video whose first frame is the action keeps it: the search costs nothing there.
    @Test func anActionOpeningIsItsOwnPoster() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("action.mp4")
        try Self.ffmpeg([
            "-v", "error", "-y", "-f", "lavfi", "-i", "mandelbrot=size=640x360:rate=30", "-t", "3", "-c:v", "libx264",
            "-preset", "ultrafast", "-pix_fmt", "yuv420p", file.path
        ])
        let image = try Renderers().renderer(for: .mp4)!.render(file.path, RenderRequest())
        #expect(image.facts.frameSeconds == 0)
    }

    /// A reel opening on a grey car park, then a room, then a fractal zoom: the opening's rule takes
    /// its first frame (lit, with some contrast), and once the plays are indexed the poster moves to
    /// a later play's frame that has more to show, with more contrast by the ffmpeg CLI's measure;
    /// the preview rendered at that time is that frame. A reel opening on its best play keeps it.
    @Test func aReelsPosterMovesToAPlayThatShowsMore() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let reel = HighlightReel.carParkOpening
        let file = folder.url.appendingPathComponent("reel.mp4")
        try reel.write(to: file)
        let renderer = try #require(Renderers().renderer(for: .mp4))
        let opening = try renderer.render(file.path, RenderRequest())
        let openingSeconds = try #require(opening.facts.frameSeconds)
        #expect(openingSeconds < 4, "the opening's rule chose \(openingSeconds) s")

        let index = try PlayIndexer(limits: Limits(), timeoutSeconds: 120).index(file.path, kind: .mp4, opening: openingSeconds)
        let poster = try #require(index.poster)
        let play = try #require(poster.play, "the opening's frame stayed: \(index)")
        #expect(play >= 2 && (index.plays[play - 1].start...index.plays[play - 1].end).contains(poster.seconds), "\(index)")

        var request = RenderRequest()
        request.frameSeconds = poster.seconds
        let moved = try renderer.render(file.path, request)
        let shown = try #require(moved.facts.frameSeconds)
        #expect(shown >= poster.seconds - 0.001 && shown < poster.seconds + 0.1, "asked for \(poster.seconds) s, shown \(shown) s")
        let (before, after) = (folder.url.appendingPathComponent("opening.jpg"), folder.url.appendingPathComponent("moved.jpg"))
        try Data(opening.bytes).write(to: before)
        try Data(moved.bytes).write(to: after)
        // The frame the ffmpeg CLI decodes at that time, scaled as the poster is.
        let expected = try Self.frame(of: file, at: shown, in: folder)
        #expect(try MediaTools.ssim(after, expected, luma: true) >= 0.95)
        let (openingContrast, movedContrast) = (try Self.contrast(before), try Self.contrast(after))
        #expect(movedContrast > openingContrast, "contrast \(movedContrast), the opening's \(openingContrast)")

        let best = HighlightReel([
            HighlightReel.Clip(.footage("people", from: 2), seconds: 4), HighlightReel.Clip(.footage("cars", from: 3), seconds: 4)
        ])
        let bestFile = folder.url.appendingPathComponent("best-first.mp4")
        try best.write(to: bestFile)
        let bestOpening = try #require(try renderer.render(bestFile.path, RenderRequest()).facts.frameSeconds)
        let kept = try PlayIndexer(limits: Limits(), timeoutSeconds: 120).index(bestFile.path, kind: .mp4, opening: bestOpening)
        #expect(kept.poster?.play == nil && kept.poster?.seconds == bestOpening, "\(kept)")
    }

    // MARK: The ffmpeg CLI's view

    private static func frame(of video: URL, at seconds: Double, in folder: TemporaryFolder) throws -> URL {
        let output = folder.url.appendingPathComponent("frame-\(seconds).png")
        try ffmpeg(["-v", "error", "-y", "-ss", "\(seconds)", "-i", video.path, "-frames:v", "1", "-vf", "scale=512:-2", output.path])
        return output
    }

    /// blackdetect with its default for pixels (luma under 10 % of the range is black), the frame
    /// counted black when 85 % of its pixels are (a dark title card's letters are the rest).
    private static func isBlack(_ image: URL) throws -> Bool {
        try ffmpeg(["-i", image.path, "-vf", "blackdetect=d=0:pic_th=0.85", "-f", "null", "-"]).contains("black_start")
    }

    private static func meanLuma(_ image: URL) throws -> Double {
        try metadata(image, filter: "signalstats", key: "lavfi.signalstats.YAVG")
    }

    /// `signalstats`' luma spread: the 90th percentile less the 10th.
    private static func contrast(_ image: URL) throws -> Double {
        try metadata(image, filter: "signalstats", key: "lavfi.signalstats.YHIGH")
            - metadata(image, filter: "signalstats", key: "lavfi.signalstats.YLOW")
    }

    private static func blur(_ image: URL) throws -> Double {
        try metadata(image, filter: "blurdetect", key: "lavfi.blur")
    }

    private static func metadata(_ image: URL, filter: String, key: String) throws -> Double {
        let log = try ffmpeg(["-i", image.path, "-vf", "\(filter),metadata=print", "-f", "null", "-"])
        let line = try #require(log.split(separator: "\n").first { $0.contains("\(key)=") }, "\(filter) printed no \(key)")
        return try #require(Double(line.split(separator: "=").last.map(String.init) ?? ""))
    }

    /// Runs the ffmpeg CLI and returns what it wrote to standard error (its log and filters' output).
    @discardableResult
    private static func ffmpeg(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-nostdin"] + arguments
        let log = Pipe()
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = log.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg \(arguments.joined(separator: " ")) failed")
        return String(decoding: output, as: UTF8.self)
    }
}
