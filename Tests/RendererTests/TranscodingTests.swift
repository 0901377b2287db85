import Foundation
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// Renditions of the videos athletes upload, made by the test from FFmpeg's test sources: what the
/// playback decision is, what is copied and re-encoded, and that what comes out plays everywhere —
/// H.264 High 4:2:0 8-bit, AAC-LC (or a copied MP3/AAC), `moov` before `mdat`, the source's
/// duration, audio in sync, the picture upright, HDR tone-mapped.
@Suite(.blocking) struct TranscodingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        /// ffmpeg's options after the test sources.
        var encode: [String]
        var playback: Playback
        var video: String
        var audio: String?
        var width = 320
        var height = 180
        var hasAudio = true
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "AVI, MPEG-4 ASP + MP3", file: "in.avi", encode: ["-c:v", "mpeg4", "-q:v", "5", "-c:a", "libmp3lame"],
            playback: .transcode, video: "encode", audio: "copy"),
        Case(
            name: "MKV, H.264 + Opus", file: "in.mkv", encode: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "libopus"],
            playback: .transcode, video: "copy", audio: "encode"),
        Case(
            name: "WebM, VP8 + Vorbis", file: "in.webm", encode: ["-c:v", "libvpx", "-b:v", "300k", "-c:a", "libvorbis"],
            playback: .transcode, video: "encode", audio: "encode"),
        Case(
            name: "WebM, VP9 + Opus", file: "in.webm", encode: ["-c:v", "libvpx-vp9", "-b:v", "300k", "-c:a", "libopus"],
            playback: .transcode, video: "encode", audio: "encode"),
        Case(
            name: "MPEG-2 program stream", file: "in.mpg", encode: ["-c:v", "mpeg2video", "-q:v", "5", "-c:a", "mp2", "-f", "vob"],
            playback: .transcode, video: "encode", audio: "encode"),
        Case(
            name: "WMV", file: "in.wmv", encode: ["-c:v", "wmv2", "-q:v", "5", "-c:a", "wmav2"],
            playback: .transcode, video: "encode", audio: "encode"),
        Case(
            name: "FLV, Sorenson + MP3", file: "in.flv", encode: ["-c:v", "flv1", "-q:v", "5", "-c:a", "libmp3lame"],
            playback: .transcode, video: "encode", audio: "copy"),
        Case(
            name: "FLV, H.264 + AAC", file: "in.flv", encode: ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"],
            playback: .remux, video: "copy", audio: "copy"),
        Case(
            name: "MOV, HEVC 10-bit HLG", file: "in.mov",
            encode: [
                "-c:v", "libx265", "-x265-params", "log-level=none", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
                "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-c:a", "aac"
            ],
            playback: .direct, video: "encode", audio: "copy"),
        Case(
            name: "MOV, HEVC 10-bit PQ", file: "in.mov",
            encode: [
                "-c:v", "libx265", "-x265-params", "log-level=none", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
                "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-c:a", "aac"
            ],
            playback: .direct, video: "encode", audio: "copy"),
        Case(
            name: "MP4 without audio", file: "in.mp4", encode: ["-an", "-c:v", "libx264", "-pix_fmt", "yuv420p"],
            playback: .direct, video: "copy", audio: nil, hasAudio: false),
        Case(
            name: "WebM at a variable frame rate", file: "in.webm",
            encode: [
                "-vf", "setpts='if(lt(N,30),N/30/TB,(1+(N-30)/10)/TB)'", "-fps_mode", "passthrough", "-c:v", "libvpx", "-b:v", "300k",
                "-c:a", "libopus"
            ],
            playback: .transcode, video: "encode", audio: "encode")
    ]

    /// 3 s of a moving test pattern (320×180, 30 fps) and a tone, encoded as `encode` says.
    static func make(_ testCase: Case, in folder: TemporaryFolder) throws -> URL {
        let file = folder.url.appendingPathComponent(testCase.file)
        try MediaTools.ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100:duration=3"
            ] + testCase.encode + [file.path])
        return file
    }

    @Test(arguments: cases)
    func renditionPlaysEverywhere(_ testCase: Case) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.make(testCase, in: folder)
        let output = folder.url.appendingPathComponent("rendition.mp4")
        let rendition = try VideoTranscoding().transcode(source.path, to: output.path)
        #expect(rendition.playback == testCase.playback)
        #expect(rendition.video == testCase.video && rendition.audio == testCase.audio)
        #expect(rendition.width == testCase.width && rendition.height == testCase.height)

        let probe = try MediaTools.probe(output)
        let video = try #require(probe.video)
        #expect(video.codec_name == "h264" && video.profile == "High" && video.pix_fmt == "yuv420p")
        #expect(rendition.codecs.hasPrefix("avc1.64"))
        if testCase.hasAudio {
            let audio = try #require(probe.audio)
            #expect(testCase.audio == "copy" || (audio.codec_name == "aac" && audio.profile == "LC"))
            let gap = abs((Double(audio.start_time ?? "0") ?? 0) - (Double(video.start_time ?? "0") ?? 0))
            #expect(gap <= 0.04, "audio starts \(gap) s from video")
        } else {
            #expect(probe.audio == nil)
        }
        let boxes = try MediaTools.topLevelBoxes(output)
        #expect((boxes.firstIndex(of: "moov") ?? .max) < (boxes.firstIndex(of: "mdat") ?? -1), "boxes \(boxes)")
        let sourceDuration = try #require(try MediaTools.probe(source).durationSeconds)
        let renditionDuration = try #require(probe.durationSeconds)
        #expect(abs(renditionDuration - sourceDuration) <= 0.1, "source \(sourceDuration) s, rendition \(renditionDuration) s")
        // The staged file was moved into place: nothing else is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("partial") }.isEmpty)
    }

    /// HDR sources come out as BT.709 SDR, as bright as the usual zscale + Hable tone-map makes
    /// them: not washed out (too grey) as a plain 10-to-8-bit conversion leaves PQ, nor too dark.
    @Test(arguments: cases.filter { $0.name.contains("HEVC") })
    func highDynamicRangeIsToneMapped(_ testCase: Case) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.make(testCase, in: folder)
        let output = folder.url.appendingPathComponent("rendition.mp4")
        _ = try VideoTranscoding().transcode(source.path, to: output.path)
        #expect(try MediaTools.probe(output).video?.color_transfer == "bt709")
        let reference = try MediaTools.meanLuma(
            source,
            filters: "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
                + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv")
        let luma = try MediaTools.meanLuma(output)
        #expect(abs(luma - reference) / reference < 0.03, "rendition mean luma \(luma), reference \(reference)")
    }

    /// A phone's portrait video (a display matrix over landscape pixels) stays upright: copied
    /// with its matrix, or re-encoded with the pixels turned and no matrix.
    @Test func portraitStaysUpright() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let landscape = folder.url.appendingPathComponent("landscape.mp4")
        try MediaTools.ffmpeg([
            "-f", "lavfi", "-i", "color=black:size=640x360:rate=30:duration=2,drawbox=x=0:y=0:w=320:h=180:color=white:t=fill",
            "-f", "lavfi", "-i", "sine=duration=2",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", landscape.path
        ])
        let portrait = folder.url.appendingPathComponent("portrait.mp4")
        try MediaTools.rotate(landscape, to: portrait, degrees: 90)

        let copied = folder.url.appendingPathComponent("copied.mp4")
        let copy = try VideoTranscoding().transcode(portrait.path, to: copied.path)
        #expect(copy.playback == .direct && copy.video == "copy" && copy.width == 360 && copy.height == 640)
        let copiedVideo = try #require(try MediaTools.probe(copied).video)
        #expect(copiedVideo.rotation == 90 && copiedVideo.width == 640)

        var small = RenditionSettings()
        small.height = 240
        let encoded = folder.url.appendingPathComponent("encoded.mp4")
        let encode = try VideoTranscoding(settings: small).transcode(portrait.path, to: encoded.path, shrink: true)
        #expect(encode.video == "encode" && encode.width == 240 && encode.height == 426)
        let encodedVideo = try #require(try MediaTools.probe(encoded).video)
        #expect(encodedVideo.rotation == 0 && encodedVideo.width == 240 && encodedVideo.height == 426)
        // The stored pixels' bright top-left quarter is the upright picture's top-right.
        let topLeft = try MediaTools.meanLuma(encoded, filters: "crop=120:213:0:0")
        let topRight = try MediaTools.meanLuma(encoded, filters: "crop=120:213:120:0")
        #expect(topLeft < 40 && topRight > 200, "upright top-left \(topLeft), top-right \(topRight)")
    }

    /// Past the limits, a video keeps its original and says why; nothing is written.
    @Test func limitsRefuseWithAReason() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.make(Self.cases[0], in: folder)
        let output = folder.url.appendingPathComponent("rendition.mp4")
        var limits = Limits()
        limits.maxRenditionSeconds = 2
        #expect(throws: PreviewError.self) { try VideoTranscoding(limits: limits).transcode(source.path, to: output.path) }
        do {
            _ = try VideoTranscoding(limits: limits).transcode(source.path, to: output.path)
        } catch {
            #expect(error.code == .tooLong)
        }
        // A sliver 16 pixels wide and 9,000 tall: within the pixel limit, past any player's side.
        let sliver = folder.url.appendingPathComponent("sliver.mov")
        try MediaTools.ffmpeg(["-f", "lavfi", "-i", "color=gray:size=16x9000:rate=1:duration=1", "-c:v", "png", sliver.path])
        do {
            _ = try VideoTranscoding().transcode(sliver.path, to: output.path)
            Issue.record("a 16×9000 video was transcoded")
        } catch {
            #expect(error.code == .tooManyPixels, "\(error)")
        }
        limits = Limits()
        limits.maxRenditionPixels = 320 * 179
        do {
            _ = try VideoTranscoding(limits: limits).transcode(source.path, to: output.path)
            Issue.record("a frame over the pixel limit was transcoded")
        } catch {
            #expect(error.code == .tooManyPixels)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A truncated video still makes a rendition of what is there; garbage fails with `corrupt`,
    /// and neither leaves a partial file.
    @Test func damagedVideosEndCleanly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = try Self.make(Self.cases[2], in: folder)
        let bytes = try Data(contentsOf: source)
        let truncated = try folder.file("truncated.webm", Array(bytes.prefix(bytes.count / 2)))
        let output = folder.url.appendingPathComponent("rendition.mp4")
        let rendition = try VideoTranscoding().transcode(truncated.path, to: output.path)
        #expect(rendition.durationSeconds > 0.5 && rendition.durationSeconds < 2.9)

        var garbage = Array(bytes.prefix(4096))
        for index in stride(from: 200, to: garbage.count, by: 7) { garbage[index] ^= 0x5A }
        let damaged = try folder.file("damaged.webm", garbage + Array(repeating: 0xFF, count: 1 << 16))
        let failed = folder.url.appendingPathComponent("failed.mp4")
        do {
            _ = try VideoTranscoding().transcode(damaged.path, to: failed.path)
            #expect(try MediaTools.probe(failed).video != nil, "a rendition was written that is not a video")
        } catch let error as PreviewError {
            #expect([.corrupt, .noVideoStream].contains(error.code), "\(error)")
            #expect(!FileManager.default.fileExists(atPath: failed.path))
        } catch {
            Issue.record("ffprobe could not read the rendition: \(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("partial") }.isEmpty)
    }
}
