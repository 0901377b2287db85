import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// Clips cut by stream copy (``VideoClipping``) from videos the test makes with the ffmpeg CLI: the
/// first frame shown is the source's frame at the start, the clip lasts its span to the frame,
/// every packet is one of the source's (nothing re-encoded), and what cannot be clipped says why.
@Suite(.blocking) struct ClipTests {
    struct Source: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        /// ffmpeg's options after the test sources (30 frames a second, 20 s).
        var encode: [String]
        var testDescription: String { name }
    }

    static let sources: [Source] = [
        Source(
            name: "MP4, H.264 with B-frames + AAC, a keyframe every 2 s", file: "in.mp4",
            encode: ["-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
        Source(
            name: "MKV, H.264 + Opus, a keyframe every 5 s", file: "in.mkv",
            encode: ["-c:v", "libx264", "-preset", "veryfast", "-g", "150", "-pix_fmt", "yuv420p", "-c:a", "libopus"]),
        Source(
            name: "WebM, VP9 + Opus", file: "in.webm",
            encode: ["-c:v", "libvpx-vp9", "-b:v", "400k", "-deadline", "realtime", "-cpu-used", "8", "-g", "90", "-c:a", "libopus"]),
        Source(
            name: "MP4, H.264 with one keyframe (periodic intra refresh)", file: "in.mp4",
            encode: [
                "-c:v", "libx264", "-preset", "veryfast", "-x264-params", "keyint=infinite:intra-refresh=1", "-pix_fmt", "yuv420p",
                "-an"
            ])
    ]

    /// Spans (seconds) across a GOP, on a keyframe, at the start, and past the end.
    static let spans: [(start: Double, end: Double)] = [(5.52, 9.2), (4.0, 6.0), (0, 1.5), (18.51, 25)]
    static let rate = 30.0

    @Test(arguments: sources)
    func aClipShowsTheFramesFromItsStartToItsEndCopiedNotReencoded(_ source: Source) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent(source.file)
        try MediaTools.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=20", "-f", "lavfi", "-i", "sine=duration=20"] + source.encode
                + [input.path])
        let sourcePackets = try Self.videoPacketHashes(input)
        for (number, span) in Self.spans.enumerated() {
            let output = folder.url.appendingPathComponent("clip\(number).mp4")
            let clip = try VideoClipping(timeoutSeconds: 60).clip(input.path, kind: nil, from: span.start, to: span.end, into: output.path)
            let frame = 1 / Self.rate
            // The first frame is the one shown at the start; the last ends at or just past the end.
            // (Opus's pre-skip starts a Matroska timeline 14 ms before the first frame, where a clip from 0 starts.)
            #expect(clip.start <= span.start + 0.02 && span.start < clip.start + frame, "\(span): starts at \(clip.start)")
            #expect(abs(clip.end - min(span.end, 20)) < frame + 1e-6, "\(span): ends at \(clip.end)")
            #expect(clip.keyframe <= clip.start)
            let frames =
                Int(try MediaTools.ffprobeValue(output, ["-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames"])) ?? -1
            #expect(frames == Int(((clip.end - clip.start) * Self.rate).rounded()), "\(span): \(frames) frames decoded")
            let duration = try MediaTools.probe(output).durationSeconds ?? 0
            #expect(abs(duration - (clip.end - clip.start)) <= frame, "\(span): lasts \(duration) s")
            // Its first and last frames are the source's at those times.
            let (first, last) = (folder.url.appendingPathComponent("first.png"), folder.url.appendingPathComponent("last.png"))
            try MediaTools.ffmpeg(["-i", output.path, "-frames:v", "1", first.path])
            try MediaTools.ffmpeg(["-i", output.path, "-vf", "select=eq(n\\,\(frames - 1))", "-frames:v", "1", last.path])
            for (shown, seconds) in [(first, clip.start), (last, clip.end - frame)] {
                let expected = folder.url.appendingPathComponent("expected.png")
                try MediaTools.ffmpeg([
                    "-i", input.path, "-vf", "select=eq(n\\,\(Int((seconds * Self.rate).rounded())))", "-frames:v", "1", expected.path
                ])
                let ssim = try MediaTools.ssim(shown, expected)
                #expect(ssim >= 0.98, "\(span): the frame at \(seconds) s has SSIM \(ssim)")
            }
            let copied = try Self.videoPacketHashes(output)
            #expect(!copied.isEmpty && copied.isSubset(of: sourcePackets), "\(span): a packet is not the source's")
        }
    }

    @Test func aRotatedHDRVideoKeepsItsDisplayMatrixAndColour() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hdr = folder.url.appendingPathComponent("hdr.mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4", "-c:v", "libx265", "-x265-params", "log-level=none",
            "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
            "-tag:v", "hvc1", hdr.path
        ])
        let rotated = folder.url.appendingPathComponent("rotated.mp4")
        try MediaTools.rotate(hdr, to: rotated, degrees: 90)
        let output = folder.url.appendingPathComponent("clip.mp4")
        let clip = try VideoClipping().clip(rotated.path, kind: .mp4, from: 1.1, to: 2.5, into: output.path)
        let video = try #require(try MediaTools.probe(output).video)
        #expect(video.rotation == 90)
        #expect(video.color_transfer == "arib-std-b67")
        #expect(video.codec_name == "hevc")
        #expect(abs(clip.end - clip.start - 1.4) < 1 / Self.rate + 1e-6)
    }

    @Test func aVariableFrameRateClipStartsOnTheFrameShownAtItsStart() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let input = folder.url.appendingPathComponent("vfr.mp4")
        // Every frame of the first 2 s, then one in three: frames 1/30 s apart, then 1/10 s.
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=8", "-vf", "select='lt(n\\,60)+not(mod(n\\,3))'",
            "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", input.path
        ])
        let output = folder.url.appendingPathComponent("clip.mp4")
        let clip = try VideoClipping().clip(input.path, kind: .mp4, from: 4.05, to: 6.0, into: output.path)
        #expect(clip.start <= 4.05 && 4.05 < clip.start + 0.1 + 1e-6)
        let (shown, expected) = (folder.url.appendingPathComponent("shown.png"), folder.url.appendingPathComponent("expected.png"))
        try MediaTools.ffmpeg(["-i", output.path, "-frames:v", "1", shown.path])
        try MediaTools.ffmpeg(["-ss", String(clip.start), "-i", input.path, "-frames:v", "1", expected.path])
        #expect(try MediaTools.ssim(shown, expected) >= 0.98)
    }

    @Test func whatCannotBeClippedSaysWhy() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let mp4 = folder.url.appendingPathComponent("in.mp4")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", mp4.path])
        let wmv = folder.url.appendingPathComponent("in.wmv")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4", "-c:v", "wmv2", wmv.path])
        let mp3 = folder.url.appendingPathComponent("in.mp3")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "sine=duration=4", mp3.path])
        let output = folder.url.appendingPathComponent("clip.mp4")
        let refusals: [(URL, FileKind?, Double, Double, PreviewError.Code)] = [
            (mp4, .mp4, 2, 2, .badRequest), (mp4, .mp4, 3, 1, .badRequest), (mp4, .mp4, -1, 1, .badRequest),
            (mp4, .mp4, .nan, 1, .badRequest), (mp4, .mp4, 0, .infinity, .badRequest), (mp4, .mp4, 4.5, 6, .badRequest),
            (wmv, .asf, 1, 2, .unsupportedType), (mp3, .mp3, 1, 2, .noVideoStream)
        ]
        for (input, kind, start, end, code) in refusals {
            let error = #expect(throws: PreviewError.self, "\(input.lastPathComponent) \(start)–\(end)") {
                try VideoClipping().clip(input.path, kind: kind, from: start, to: end, into: output.path)
            }
            #expect(error?.code == code, "\(input.lastPathComponent) \(start)–\(end): \(error?.message ?? "")")
            #expect(!FileManager.default.fileExists(atPath: output.path), "a refused clip left a file")
        }
    }

    /// The MD5 of every video packet of `file`.
    static func videoPacketHashes(_ file: URL) throws -> Set<String> {
        let lines = try MediaTools.ffprobeValue(
            file, ["-select_streams", "v", "-show_data_hash", "md5", "-show_entries", "packet=data_hash"])
        return Set(lines.split(separator: "\n").map(String.init))
    }
}
