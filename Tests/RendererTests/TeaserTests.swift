import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// A video's teaser (``VideoTeaser``): which seconds it shows, and what it is — silent H.264, 320 px
/// wide and upright, as long as its spans, under 50 KB — for a reel the ffmpeg CLI joins and a
/// portrait phone video.
@Suite(.blocking) struct TeaserTests {
    @Test func aTeaserShowsASecondOfEachOfTheFirstPlaysClearOfTheirCuts() {
        let plays = [
            Play(start: 0, end: 4, poster: 0.3), Play(start: 4, end: 4.9, poster: 4.5), Play(start: 4.9, end: 9, poster: 8.9),
            Play(start: 9, end: 15, poster: 12), Play(start: 15, end: 20, poster: 17), Play(start: 20, end: 30, poster: 25)
        ]
        let spans = VideoTeaser.spans(plays: plays, duration: 30)
        #expect(spans.count == 4, "\(spans)")
        #expect(spans.allSatisfy { abs($0.end - $0.start - 1) < 1e-9 })
        // Each inside a play, 0.2 s from its cuts; the 0.9 s play is too short for a second.
        for span in spans {
            #expect(plays.contains { $0.start + 0.2 <= span.start + 1e-9 && span.end <= $0.end - 0.2 + 1e-9 }, "\(span)")
        }
        #expect(zip(spans.map(\.start), [0.2, 7.8, 11.5, 16.5]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(spans)")
    }

    @Test func aVideoOfOneShotShowsThreeSecondsSpreadOverIt() {
        let spread = VideoTeaser.spans(plays: [Play(start: 0, end: 60, poster: 2)], duration: 60)
        #expect(spread.map(\.start) == [14.5, 29.5, 44.5])
        #expect(VideoTeaser.spans(plays: [], duration: 4) == [MediaSpan(start: 0, end: 4)])
        #expect(VideoTeaser.spans(plays: [], duration: .nan).isEmpty)
    }

    @Test func aReelsTeaserIsSmallSilentAndAsLongAsItsSpans() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        typealias Clip = HighlightReel.Clip
        let reel = HighlightReel(
            [Clip(.pattern, seconds: 4), Clip(.field, seconds: 4), Clip(.photoPan, seconds: 4), Clip(.fractal, seconds: 4)],
            width: 1280, height: 720)
        let file = folder.url.appendingPathComponent("reel.mp4")
        try reel.write(to: file)
        let index = try PlayIndexer(limits: Limits(), timeoutSeconds: 120).index(file.path, kind: .mp4)
        let spans = VideoTeaser.spans(plays: index.plays, duration: 16)
        #expect(spans.count == 4, "\(index.plays)")
        let output = folder.url.appendingPathComponent("teaser.mp4")
        let teaser = try VideoTeaser(timeoutSeconds: 60).write(file.path, kind: .mp4, spans: spans, to: output.path)
        let written = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int
        #expect(teaser.size <= 50_000 && teaser.size == written, "\(teaser.size) bytes")
        let probe = try MediaTools.probe(output)
        #expect(probe.audio == nil && probe.video?.codec_name == "h264" && probe.video?.width == 320 && probe.video?.height == 180)
        #expect(abs((probe.durationSeconds ?? 0) - 4) <= 1 / 24 + 1e-6, "\(probe.format)")
        #expect(teaser.durationSeconds == 4 && teaser.width == 320 && teaser.height == 180)
    }

    @Test func aPortraitPhoneVideosTeaserIsUpright() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let landscape = folder.url.appendingPathComponent("landscape.mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=8", "-c:v", "libx264", "-pix_fmt", "yuv420p", landscape.path
        ])
        let phone = folder.url.appendingPathComponent("phone.mp4")
        try MediaTools.rotate(landscape, to: phone, degrees: 90)
        let output = folder.url.appendingPathComponent("teaser.mp4")
        let teaser = try VideoTeaser().write(phone.path, kind: .mp4, spans: VideoTeaser.spans(plays: [], duration: 8), to: output.path)
        let video = try #require(try MediaTools.probe(output).video)
        #expect(video.width == 320 && video.height == 568 && video.rotation == 0, "\(video)")
        #expect(teaser.durationSeconds == 3)
    }
}
