internal import CFFmpeg
import PreviewCore

/// A part of a video cut out by stream copy, never re-encoded: the packets from the keyframe at or
/// before the start up to the end are copied into an MP4 whose edit lists show exactly the frames
/// from the start to the end (the keyframe's lead-in is decoded by a player but never shown).
///
/// The start is the frame shown at `start`; the end is the first frame's start at or after `end`,
/// so the clip is whole frames. With B-frames, a shown frame's later references are copied too and
/// the edit ends before them. The video and its first audio stream (the default one) are kept;
/// subtitles and data are not. Audio is copied from a little before the start (a decoder's warm-up)
/// and its edit list trims it to the same span.
package struct StreamClipper: Sendable {
    /// Audio copied ahead of the start: an AAC frame or two, which the decoder needs to warm up.
    static let audioLeadSeconds = 0.1
    /// Seeks back past a keyframe shown after the start (a B-frame's reordering) before giving up.
    static let keyframeTries = 8

    package init() {}

    /// What was cut.
    package struct Result: Sendable, Equatable {
        /// Seconds from the video's start: the first frame shown, and the end of the last.
        package var start: Double
        package var end: Double
        /// Where the copied video begins (the keyframe the first frame is decoded from).
        package var keyframe: Double
        package var packets: Int
    }

    /// Writes the part of `input` from `start` to `end` seconds (from the video's start; an end
    /// past the video is its end) to an MP4 at `path`. Throws ``PreviewError`` for a range or a
    /// file that cannot be clipped, ``FFmpegError`` when FFmpeg fails.
    package func clip(_ input: MediaInput, from start: Double, to end: Double, into path: String) throws -> Result {
        guard start.isFinite, end.isFinite, start >= 0, end > start else {
            throw PreviewError(.badRequest, "A clip needs a start of 0 or more seconds and an end after it.")
        }
        let video = input.bestVideoStream()
        let sound = input.bestAudioStream()?.index
        guard let reference = video?.index ?? sound else {
            throw PreviewError(.noVideoStream, "The file has no video or sound to clip.")
        }
        let audio = sound == reference ? nil : sound
        let duration = input.durationSeconds ?? .infinity
        guard start < duration else {
            throw PreviewError(.badRequest, "The clip starts at \(start) s, after the video's end (\(duration) s).")
        }
        let context = input.context
        context.pointee.flags |= AVFMT_FLAG_GENPTS
        let streams = ([reference] + (audio.map { [$0] } ?? [])).compactMap { context.pointee.streams[$0] }
        let time = Timeline(input)
        let referenceStream = streams[0]

        var packet = lazy_av_packet_alloc()()
        defer { lazy_av_packet_free()(&packet) }
        guard let packet else { throw FFmpegError(function: "av_packet_alloc", code: -12) }

        let startTime = time.timestamp(start, in: referenceStream)
        let endTime = time.timestamp(min(end, duration), in: referenceStream)
        var clock = DecodeClock(input)
        let keyframe = try seekToKeyframe(input, reference: referenceStream, atOrBefore: startTime, packet, &clock)
        // The frame shown at the start: the latest at or before it, read from the keyframe on
        // (sound starts where asked: its edit list cuts inside a packet).
        var first = video == nil ? max(keyframe.pts, startTime) : keyframe.pts
        if video != nil {
            try readPackets(input, packet, &clock) { index, pts, dts in
                guard index == reference else { return true }
                if pts <= startTime { first = max(first, pts) }
                return dts <= startTime
            }
        }
        try seek(input, reference: referenceStream, to: keyframe.seekTarget)
        clock.reset()

        let file = try MediaOutput(path: path, container: .clip)
        var copies: [Int: StreamCopy] = [:]
        for source in streams {
            guard file.accepts(source.pointee.codecpar) else {
                let codec = lazy_avcodec_get_name()(source.pointee.codecpar.pointee.codec_id).map { String(cString: $0) } ?? "this codec"
                throw PreviewError(.unsupportedType, "\(codec) cannot be put in an MP4 as it is, so it cannot be clipped without re-encoding.")
            }
            copies[Int(source.pointee.index)] = try StreamCopy(source, into: file)
        }
        try file.writeHeader()

        let shift = Dictionary(uniqueKeysWithValues: streams.map { (Int($0.pointee.index), time.rescale(first, from: referenceStream, to: $0)) })
        let audioStream = audio.flatMap { context.pointee.streams[$0] }
        let audioFrom = audioStream.map { time.rescale(first, from: referenceStream, to: $0) &- time.ticks(Self.audioLeadSeconds, in: $0) }
        let audioTo = audioStream.map { time.rescale(endTime, from: referenceStream, to: $0) }
        // The end: the first frame's start at or after `end` (no later packet can start earlier
        // once decoding times pass it); the stream's end when the video ends first.
        var last = Int64.max
        var streamEnd = Int64.min
        var referenceDone = false
        var audioDone = audio == nil
        var packets = 0
        try readPackets(input, packet, &clock) { index, pts, dts in
            guard let copy = copies[index], let shiftBy = shift[index] else { return true }
            if lazy_av_packet_get_side_data()(packet, AV_PKT_DATA_ENCRYPTION_INFO, nil) != nil { throw FFmpegError.encrypted }
            if index == reference {
                // Frames before the keyframe in an open GOP refer to the one before it: never decodable here.
                if referenceDone || dts < keyframe.dts || pts < keyframe.pts { return true }
                if pts >= endTime { last = min(last, pts) }
                if dts >= endTime {
                    if video == nil || dts >= last { referenceDone = true }
                    return !(referenceDone && audioDone)
                }
                streamEnd = max(streamEnd, pts &+ max(0, packet.pointee.duration))
            } else {
                if audioDone { return true }
                let packetEnd = pts &+ max(0, packet.pointee.duration)
                if let audioTo, pts >= audioTo {
                    audioDone = true
                    return !referenceDone
                }
                if let audioFrom, packetEnd <= audioFrom { return true }
            }
            packet.pointee.pts = pts &- shiftBy
            packet.pointee.dts = dts &- shiftBy
            try copy.write(packet, to: file)
            packets += 1
            return true
        }
        guard copies[reference].map({ $0.packetsWritten > 0 }) == true, streamEnd > first else {
            throw PreviewError(.corrupt, "No frame of the video between \(start) s and \(end) s could be read.")
        }
        try file.finish()
        let shownEnd = video == nil ? min(endTime, streamEnd) : min(last, streamEnd)
        try MP4Presentation.cut(path, toSeconds: time.seconds(shownEnd &- first, in: referenceStream, fromStart: false))
        return Result(
            start: time.seconds(first, in: referenceStream), end: time.seconds(shownEnd, in: referenceStream),
            keyframe: time.seconds(keyframe.pts, in: referenceStream), packets: packets)
    }

    /// A keyframe found by seeking: its times, and the seek target that lands on it.
    private struct Keyframe {
        var pts: Int64
        var dts: Int64
        var seekTarget: Int64
    }

    /// Seeks to the keyframe shown at or before `time` in `reference`: demuxers index keyframes
    /// by decoding time, so one shown after `time` (reordered) sends the seek further back. When no
    /// keyframe precedes `time`, the file's first one: nothing before it can be decoded.
    private func seekToKeyframe(
        _ input: MediaInput, reference: UnsafeMutablePointer<AVStream>, atOrBefore time: Int64, _ packet: UnsafeMutablePointer<AVPacket>,
        _ clock: inout DecodeClock
    ) throws -> Keyframe {
        var target = time
        var found: Keyframe?
        for _ in 0..<Self.keyframeTries {
            guard lazy_av_seek_frame()(input.context, reference.pointee.index, target, AVSEEK_FLAG_BACKWARD) >= 0 else { break }
            clock.reset()
            var keyframe: Keyframe?
            try readPackets(input, packet, &clock) { index, pts, dts in
                guard index == Int(reference.pointee.index), packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return true }
                keyframe = Keyframe(pts: pts, dts: dts, seekTarget: target)
                return false
            }
            guard let keyframe else { break }
            found = keyframe
            if keyframe.pts <= time { return keyframe }
            let earlier = min(keyframe.dts, target) &- 1
            guard earlier < target else { break }
            target = earlier
        }
        if let found { return found }
        throw PreviewError(.corrupt, "The video has no keyframe to start a clip from.")
    }

    private func seek(_ input: MediaInput, reference: UnsafeMutablePointer<AVStream>, to target: Int64) throws(FFmpegError) {
        try FFmpegError.check(lazy_av_seek_frame()(input.context, reference.pointee.index, target, AVSEEK_FLAG_BACKWARD), "av_seek_frame")
    }

    /// Reads packets, giving `body` each one's stream and times, while it answers true.
    private func readPackets(
        _ input: MediaInput, _ packet: UnsafeMutablePointer<AVPacket>, _ clock: inout DecodeClock, _ body: (Int, Int64, Int64) throws -> Bool
    ) throws {
        while true {
            if input.isPastDeadline { throw FFmpegError(function: "av_read_frame", code: docpreview_averror_exit()) }
            let read = lazy_av_read_frame()(input.context, packet)
            if read == docpreview_averror_exit() { throw FFmpegError(function: "av_read_frame", code: read) }
            if read < 0 { return }
            defer { lazy_av_packet_unref()(packet) }
            guard let (pts, dts) = clock.times(packet) else { continue }
            if try !body(Int(packet.pointee.stream_index), pts, dts) { return }
        }
    }

    /// Packets' presentation and decoding times after a seek. A Matroska demuxer gives reordered
    /// video (B-frames) no decoding times for the first packets after a seek: each is put before
    /// its presentation by the stream's reorder delay, and after the one before it.
    private struct DecodeClock {
        private var last: [Int32: Int64] = [:]
        private let delays: [Int32: Int64]

        init(_ input: MediaInput) {
            var delays: [Int32: Int64] = [:]
            for index in 0..<input.streamCount {
                guard let stream = input.context.pointee.streams[index] else { continue }
                delays[stream.pointee.index] = Int64(max(0, stream.pointee.codecpar.pointee.video_delay))
            }
            self.delays = delays
        }

        /// Forgets what was read (after a seek).
        mutating func reset() { last = [:] }

        /// The packet's times; its presentation time is missing (nil) when neither is known.
        mutating func times(_ packet: UnsafeMutablePointer<AVPacket>) -> (pts: Int64, dts: Int64)? {
            let none = docpreview_nopts_value()
            let index = packet.pointee.stream_index
            let step = max(1, packet.pointee.duration)
            guard let pts = packet.pointee.pts != none ? packet.pointee.pts : packet.pointee.dts != none ? packet.pointee.dts : nil else {
                return nil
            }
            var dts = packet.pointee.dts
            if dts == none {
                dts = last[index].map { min(pts, $0 &+ step) } ?? pts &- (delays[index] ?? 0) &* step
            }
            last[index] = dts
            return (pts, dts)
        }
    }

    /// Seconds from the container's start to and from each stream's time base.
    private struct Timeline {
        let start: Int64

        init(_ input: MediaInput) {
            let containerStart = input.context.pointee.start_time
            start = containerStart == docpreview_nopts_value() ? 0 : containerStart
        }

        func timestamp(_ seconds: Double, in stream: UnsafeMutablePointer<AVStream>) -> Int64 {
            let micro = Int64(exactly: (seconds * Double(AV_TIME_BASE)).rounded()) ?? 0
            return lazy_av_rescale_q()(
                micro.addingReportingOverflow(start).partialValue, AVRational(num: 1, den: AV_TIME_BASE), stream.pointee.time_base)
        }

        func ticks(_ seconds: Double, in stream: UnsafeMutablePointer<AVStream>) -> Int64 {
            let base = stream.pointee.time_base
            return Int64((seconds * Double(base.den) / Double(max(base.num, 1))).rounded())
        }

        func rescale(_ time: Int64, from: UnsafeMutablePointer<AVStream>, to: UnsafeMutablePointer<AVStream>) -> Int64 {
            lazy_av_rescale_q()(time, from.pointee.time_base, to.pointee.time_base)
        }

        func seconds(_ time: Int64, in stream: UnsafeMutablePointer<AVStream>, fromStart: Bool = true) -> Double {
            let base = stream.pointee.time_base
            let micro = lazy_av_rescale_q()(time, base, AVRational(num: 1, den: AV_TIME_BASE)) &- (fromStart ? start : 0)
            return Double(micro) / Double(AV_TIME_BASE)
        }
    }
}
