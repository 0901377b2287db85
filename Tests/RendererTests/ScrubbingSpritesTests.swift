import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// Seek-bar thumbnails: a tile every interval, each the picture at its time (the keyframe there),
/// laid out in sheets that the WebVTT track points into, bounded in number however long the video.
@Suite(.blocking) struct ScrubbingSpritesTests {
    /// `seconds` of a picture that brightens frame by frame (a ramp the tiles can be placed on), 30 fps,
    /// a keyframe every `keyframeEvery` frames.
    static func ramp(seconds: Int, keyframeEvery: Int, in folder: TemporaryFolder, size: String = "320x180") throws -> URL {
        let file = folder.url.appendingPathComponent("ramp-\(seconds).mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:size=\(size):rate=30:duration=\(seconds),format=gray,geq=lum='N*200/(30*\(seconds))'",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", "\(keyframeEvery)", file.path
        ])
        return file
    }

    @Test func tilesFollowTheirTimesAndTheTrackPointsAtThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = try Self.ramp(seconds: 30, keyframeEvery: 30, in: folder)
        var sprites = ScrubbingSprites()
        sprites.columns = 4
        sprites.rows = 1
        let result = try sprites.make(video.path)
        #expect(result.intervalSeconds == 5 && result.tiles == 6 && result.tileWidth == 240 && result.tileHeight == 136)
        #expect(result.sheets.map(\.name) == ["sprite-0.jpg", "sprite-1.jpg"])
        #expect(result.sheets.map(\.width) == [960, 480] && result.sheets.allSatisfy { $0.height == 136 })

        let cues = result.track.components(separatedBy: "\n\n").dropFirst()
        #expect(result.track.hasPrefix("WEBVTT\n"))
        #expect(cues.count == 6)
        #expect(cues.first == "00:00:00.000 --> 00:00:05.000\nsprite-0.jpg#xywh=0,0,240,136")
        #expect(cues.dropFirst(5).first == "00:00:25.000 --> 00:00:30.000\nsprite-1.jpg#xywh=240,0,240,136\n")

        // Each tile is the frame at its time: as bright as ffmpeg's frame there, and brighter than the last.
        var previous = -1.0
        for index in 0..<6 {
            let sheet = folder.url.appendingPathComponent("sheet.jpg")
            try Data(result.sheets[index / 4].bytes).write(to: sheet)
            let tile = try MediaTools.meanLuma(sheet, filters: "crop=240:136:\((index % 4) * 240):0")
            let frame = try MediaTools.meanLuma(video, filters: "select=eq(n\\,\(index * 150)),scale=240:136")
            #expect(abs(tile - frame) < 3 && tile > previous, "tile \(index): \(tile), frame \(frame), previous \(previous)")
            previous = tile
        }
    }

    /// A long video costs no more tiles than the cap: the interval grows instead.
    @Test func longVideosAreCappedInTiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.url.appendingPathComponent("long.mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x36:rate=1:duration=2400", "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", "-g", "5", file.path
        ])
        let result = try ScrubbingSprites().make(file.path)
        #expect(result.intervalSeconds == 12 && result.tiles == 200 && result.sheets.count == 2)
        #expect(result.track.components(separatedBy: "-->").count == 201)
    }

    /// A phone's portrait video gets upright, portrait tiles.
    @Test func portraitTilesAreUpright() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let landscape = try Self.ramp(seconds: 6, keyframeEvery: 30, in: folder)
        let portrait = folder.url.appendingPathComponent("portrait.mp4")
        try MediaTools.rotate(landscape, to: portrait, degrees: 90)
        let result = try ScrubbingSprites().make(portrait.path)
        #expect(result.tileWidth == 240 && result.tileHeight == 426 && result.sheets[0].height == 426)
    }

    @Test func whatHasNoVideoSaysSo() throws {
        #expect(throws: PreviewError.self) { try ScrubbingSprites().make(Fixtures.sample("audio-only.m4a").path) }
        do {
            _ = try ScrubbingSprites().make(Fixtures.sample("bad-truncated.mov").path, kind: .mov)
        } catch {
            #expect([.corrupt, .noVideoStream].contains(error.code), "\(error)")
        }
    }
}
