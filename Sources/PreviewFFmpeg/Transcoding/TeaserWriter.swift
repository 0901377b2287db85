internal import CFFmpeg
import PreviewCore

/// A video's teaser: short spans of it one after another, silent, upright (and SDR), scaled to ``width`` and
/// re-encoded as H.264 at ``rate`` frames a second under a bit-rate cap, small enough to play on a
/// list's cards. Each span is reached by seeking to its keyframe and decoding from there (only the
/// frames others refer to until just before it), so the cost follows the spans, not the video's length.
package struct TeaserWriter: Sendable {
    /// The teaser's width (a narrower video keeps its own).
    package var width = 320
    package var rate = 24
    /// x264's VBV cap, bits a second: four seconds stay under 50 KB with the MP4's own bytes.
    package var maxBitrate = 80_000

    /// Before a span, frames that others do not refer to are skipped up to this much before it.
    static let leadSeconds = 0.25

    package init() {}

    /// What was written.
    package struct Result: Sendable {
        package var seconds: Double
        package var frames: Int
        package var width: Int
        package var height: Int
    }

    /// Writes the teaser of `input` made of `spans` (seconds from the video's start, in order) to
    /// an MP4 at `path`. Spans the video does not reach are left out; none at all is `corrupt`.
    package func write(_ input: MediaInput, spans: [(start: Double, end: Double)], to path: String) throws -> Result {
        guard let video = input.bestVideoStream() else { throw PreviewError(.noVideoStream, "The file has no video to make a teaser of.") }
        let display = video.displaySize
        let outputWidth = max(2, min(width, Int(display.width)) / 2 * 2)
        let outputHeight = max(2, Int((Double(outputWidth) * display.height / max(1, display.width) / 2).rounded()) * 2)
        let reader = try VideoFrameReader(input: input, stream: video, maxPackets: 1_000_000, threads: 2)
        let file = try MediaOutput(path: path)
        let encoder = try encoder(width: outputWidth, height: outputHeight, globalHeaders: file.wantsGlobalHeaders)
        let stream = try file.addStream()
        try FFmpegError.check(lazy_avcodec_parameters_from_context()(stream.pointee.codecpar, encoder.context), "avcodec_parameters_from_context")
        stream.pointee.time_base = encoder.context.pointee.time_base
        stream.pointee.avg_frame_rate = AVRational(num: Int32(rate), den: 1)
        try file.writeHeader()

        var filtered = lazy_av_frame_alloc()()
        var packet = lazy_av_packet_alloc()()
        defer {
            lazy_av_frame_free()(&filtered)
            lazy_av_packet_free()(&packet)
        }
        guard let filtered, let packet else { throw FFmpegError(function: "av_frame_alloc", code: -12) }
        func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
            try FFmpegError.check(lazy_avcodec_send_frame()(encoder.context, frame), "avcodec_send_frame")
            while lazy_avcodec_receive_packet()(encoder.context, packet) == 0 {
                lazy_av_packet_rescale_ts()(packet, encoder.context.pointee.time_base, stream.pointee.time_base)
                packet.pointee.stream_index = stream.pointee.index
                try file.write(packet)
            }
        }

        var graph: FilterGraph?
        var shape: [Int32] = []
        var offset: Int64 = 0  // frames of the spans before this one
        var frames = 0
        for span in spans where span.end > span.start {
            guard reader.seek(toSeconds: span.start) || frames == 0 else { continue }
            reader.skipsUnreferenced = true
            var last = Int64.min
            while let seconds = try reader.nextFrame() {
                if reader.sawEncryptedPacket { throw FFmpegError.encrypted }
                // Frames come out a few behind the packets going in: decode them all from just before the span.
                if seconds >= span.start - Self.leadSeconds { reader.skipsUnreferenced = false }
                if seconds < span.start { continue }
                if seconds >= span.end { break }
                let slot = Int64(((seconds - span.start) * Double(rate)).rounded(.down))
                guard slot > last else { continue }  // more frames a second than the teaser's
                last = slot
                let decoded = reader.decodedFrame
                let frameShape = [decoded.pointee.format, decoded.pointee.width, decoded.pointee.height]
                if graph == nil || frameShape != shape {
                    graph = try FilterGraph(description(of: decoded, video, width: outputWidth, height: outputHeight))
                    shape = frameShape
                }
                guard let graph else { continue }
                try graph.push(decoded)
                while try graph.pull(into: filtered) {
                    defer { lazy_av_frame_unref()(filtered) }
                    filtered.pointee.pts = offset + slot
                    filtered.pointee.pict_type = AV_PICTURE_TYPE_NONE
                    try encode(filtered)
                    frames += 1
                }
            }
            offset += Int64(((span.end - span.start) * Double(rate)).rounded(.up))
        }
        guard frames > 0 else { throw PreviewError(.corrupt, "No frame of the video's spans could be decoded for its teaser.") }
        try encode(nil)
        try file.finish()
        return Result(seconds: Double(offset) / Double(rate), frames: frames, width: outputWidth, height: outputHeight)
    }

    /// libx264 for small pictures: CRF 30 under a VBV cap, a keyframe every two seconds.
    private func encoder(width: Int, height: Int, globalHeaders: Bool) throws(FFmpegError) -> CodecContext {
        guard let x264 = lazy_avcodec_find_encoder_by_name()("libx264") else {
            throw FFmpegError(function: "avcodec_find_encoder_by_name(libx264)", code: docpreview_averror_invaliddata())
        }
        let encoder = try CodecContext(x264)
        let context = encoder.context
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        context.pointee.framerate = AVRational(num: Int32(rate), den: 1)
        context.pointee.gop_size = Int32(rate * 2)
        context.pointee.rc_max_rate = Int64(maxBitrate)
        context.pointee.rc_buffer_size = Int32(maxBitrate)
        context.pointee.thread_count = 1
        if globalHeaders { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open([("preset", "veryfast"), ("crf", "30"), ("profile", "high")])
        return encoder
    }

    /// The graph from a decoded frame to the teaser's: upright, scaled, SDR, 8-bit 4:2:0.
    private func description(of frame: UnsafeMutablePointer<AVFrame>, _ video: VideoStream, width: Int, height: Int) -> String {
        let format = lazy_av_get_pix_fmt_name()(AVPixelFormat(frame.pointee.format)).map { String(cString: $0) } ?? "yuv420p"
        let aspect = frame.pointee.sample_aspect_ratio
        return "buffer=video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(format)"
            + ":time_base=1/\(rate):pixel_aspect=\(max(aspect.num, 1))/\(max(aspect.den, 1)),"
            + Transcoder.videoFilters(for: video, width: width, height: height, scaling: "bilinear") + ",buffersink"
    }
}
