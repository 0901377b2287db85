import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// The HLS ladder: rungs up to the source's size, each a VOD playlist over byte ranges of one
/// fragmented MP4, segments on a 2 s keyframe grid whatever the source's keyframes, under a master
/// playlist a player chooses from.
@Suite(.blocking) struct VideoLadderTests {
    @Test func rungsFollowTheSourceAndEveryOnePlays() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.url.appendingPathComponent("source.mp4")
        // 6 s of 720p with a keyframe only every 8 s: the ladder must make its own.
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=6", "-f", "lavfi", "-i", "sine=duration=6",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "240", "-pix_fmt", "yuv420p", "-c:a", "aac", source.path
        ])
        let ladder = folder.url.appendingPathComponent("ladder")
        var fractions: [Double] = []
        let rungs = try VideoLadder().make(source.path, into: ladder.path) { fractions.append($0) }
        #expect(rungs.map(\.name) == ["360p", "720p"])
        // Progress runs over both rungs: rising, the 360p rung a third of the work, ending at 1.
        #expect(fractions == fractions.sorted() && fractions.last.map { abs($0 - 1) < 1e-9 } == true)
        #expect(fractions.contains { abs($0 - 1.0 / 3) < 1e-9 })
        #expect(rungs.map(\.width) == [640, 1280] && rungs.map(\.height) == [360, 720])
        #expect(rungs.allSatisfy { $0.codecs.hasPrefix("avc1.64") && $0.codecs.hasSuffix(",mp4a.40.2") })
        #expect(rungs.allSatisfy { $0.bandwidth >= $0.averageBandwidth && $0.averageBandwidth > 10_000 })
        #expect(rungs[0].bandwidth < rungs[1].bandwidth)

        let master = try String(contentsOf: ladder.appendingPathComponent("master.m3u8"), encoding: .utf8)
        #expect(master.hasPrefix("#EXTM3U\n"))
        // Every variant states its frame rate, as Apple's HLS authoring rules ask.
        #expect(rungs.allSatisfy { $0.frameRate == 30 })
        #expect(master.contains("RESOLUTION=640x360,FRAME-RATE=30.000,CODECS=\"\(rungs[0].codecs)\"\n360p.m3u8"))
        #expect(master.contains("RESOLUTION=1280x720,FRAME-RATE=30.000,CODECS=\"\(rungs[1].codecs)\"\n720p.m3u8"))

        for rung in rungs {
            let playlist = ladder.appendingPathComponent("\(rung.name).m3u8")
            let text = try String(contentsOf: playlist, encoding: .utf8)
            #expect(text.contains("#EXT-X-PLAYLIST-TYPE:VOD") && text.contains("#EXT-X-MAP:URI=\"\(rung.media)\",BYTERANGE="))
            #expect(text.components(separatedBy: "#EXT-X-BYTERANGE:").count == 4)
            let durations = text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.compactMap {
                Double($0.dropFirst(8).prefix { $0 != "," })
            }
            #expect(durations.count == 3 && durations.allSatisfy { $0 <= 2.1 }, "\(rung.name): segments \(durations)")
            #expect(abs(durations.reduce(0, +) - 6) < 0.1)
            // A player's view: ffmpeg reads the rung through its playlist, every frame of it.
            let frames = try MediaTools.ffprobeValue(
                playlist, ["-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets"])
            // (ffprobe lists an HLS stream twice: in its program, and on its own.)
            #expect(frames.split(separator: "\n").first == "180", "\(rung.name): \(frames) frames")
        }
        // Each rung's I-frame playlist: every segment's keyframe alone, a byte range inside the
        // segment, shorter than it, and each decodes as a keyframe.
        for rung in rungs {
            #expect(
                master.contains(
                    "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(try #require(rung.iFrameBandwidth)),RESOLUTION=\(rung.width)x\(rung.height),"
                        + "CODECS=\"\(rung.codecs.split(separator: ",")[0])\",URI=\"\(rung.iFramePlaylist)\""))
            let ranges = { (name: String) throws -> [[Int]] in
                try String(contentsOf: ladder.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
                    .filter { $0.hasPrefix("#EXT-X-BYTERANGE:") }.map { $0.dropFirst(17).split(separator: "@").compactMap { Int($0) } }
            }
            let (segments, keyframes) = (try ranges(rung.playlist), try ranges(rung.iFramePlaylist))
            #expect(
                keyframes.count == segments.count
                    && zip(segments, keyframes).allSatisfy { $1[1] >= $0[1] && $1[0] + $1[1] < $0[0] + $0[1] && $1[0] < $0[0] / 2 },
                "\(rung.name): \(segments) \(keyframes)")
            let text = try String(contentsOf: ladder.appendingPathComponent(rung.iFramePlaylist), encoding: .utf8)
            #expect(text.contains("#EXT-X-I-FRAMES-ONLY\n") && text.contains("#EXT-X-MAP:URI=\"\(rung.media)\""))
            // A player's view of each: the init segment then the range; its first video packet is a keyframe.
            let media = try Data(contentsOf: ladder.appendingPathComponent(rung.media))
            let initEnd = try #require(segments.first?[1])
            for (index, range) in keyframes.enumerated() {
                let alone = folder.url.appendingPathComponent("\(rung.name)-keyframe-\(index).mp4")
                try (media[0..<initEnd] + media[range[1]..<(range[1] + range[0])]).write(to: alone)
                let flags = try MediaTools.ffprobeValue(alone, ["-select_streams", "v:0", "-show_entries", "packet=flags", "-read_intervals", "%+#1"])
                #expect(flags.hasPrefix("K"), "\(rung.name) keyframe \(index): \(flags)")
                try FileManager.default.removeItem(at: alone)
            }
        }
        // Through the master too: each variant's video decodes.
        for variant in 0..<rungs.count {
            try MediaTools.ffmpeg(["-i", ladder.appendingPathComponent("master.m3u8").path, "-map", "0:v:\(variant)", "-f", "null", "-"])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["ladder", "source.mp4"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: ladder.path).sorted()
                == ["360p-iframes.m3u8", "360p.m3u8", "360p.mp4", "720p-iframes.m3u8", "720p.m3u8", "720p.mp4", "master.m3u8"])
    }

    /// A source smaller than the lowest rung is one rung at its own size.
    @Test func smallSourcesGetOneRung() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.url.appendingPathComponent("small.webm")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-c:v", "libvpx", "-b:v", "200k", source.path])
        let rungs = try VideoLadder().make(source.path, into: folder.url.appendingPathComponent("ladder").path)
        #expect(rungs.map(\.name) == ["240p"] && rungs[0].width == 320 && !rungs[0].codecs.contains("mp4a"))
    }

    /// A video that yields no frame (fuzzing's PNG-in-MOV of no duration) is `corrupt` and leaves
    /// nothing; the HLS muxer's files and buffers, which only its trailer frees, are freed too
    /// (LeakSanitizer's part, under `scripts/sanitize`).
    @Test func aVideoWithoutFramesLeavesNoLadder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = Fixtures.packageRoot.appendingPathComponent("Fuzz/regressions/png-in-mov-without-frames.mov")
        let error = #expect(throws: PreviewError.self) { try VideoLadder().make(source.path, into: folder.url.appendingPathComponent("ladder").path) }
        #expect(error?.code == .corrupt)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}
