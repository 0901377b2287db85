internal import CFFmpeg
import Foundation
import PreviewCore

/// Makes a video's rendition with libavformat, libavcodec and libavfilter: an MP4 (`moov` first)
/// whose video is H.264 High 8-bit 4:2:0 (libx264) and whose audio is AAC-LC stereo, each copied
/// instead when the source's plays as it is (see ``RenditionPlan``). Re-encoded video has its
/// display rotation applied to the pixels, HDR (PQ, HLG) tone-mapped to BT.709 SDR, non-square
/// pixels made square, and keeps its timestamps (variable frame rates stay variable).
package struct Transcoder: Sendable {
    package var settings: RenditionSettings
    /// A cap on the video's bit rate (capped CRF: x264's VBV), for a ladder's rungs; nil for none.
    package var maxBitrate: Int?
    /// Burned into every re-encoded frame (of the plan's size); nil for none.
    package var mark: FrameMark?

    package init(settings: RenditionSettings = RenditionSettings(), maxBitrate: Int? = nil, mark: FrameMark? = nil) {
        self.settings = settings
        self.maxBitrate = maxBitrate
        self.mark = mark
    }

    /// Where a rendition goes.
    package enum Output: Sendable {
        /// One MP4 file, `moov` first.
        case file(String)
        /// An HLS media playlist at `playlist` over byte ranges of the fragmented MP4 at `mediaPath`
        /// (beside it): its init segment, then segments cut at the keyframes.
        case hls(playlist: String, mediaPath: String)
    }

    /// What a finished rendition is.
    package struct Result: Sendable {
        package var plan: RenditionPlan
        /// Seconds of media written (the longest stream's end).
        package var durationSeconds: Double
        /// RFC 6381 names of the streams, comma-separated (`avc1.64001f,mp4a.40.2`).
        package var codecs: String
        /// Frames per second of the video written, when it says.
        package var frameRate: Double?
    }

    /// Writes the rendition of `input` that `plan` describes to `output` (created or truncated; on a
    /// throw it holds partial files, which the caller removes). `progress` is told the fraction
    /// done, now and then.
    package func transcode(
        _ input: MediaInput, plan: RenditionPlan, to output: Output,
        progress: (Double) -> Void = { _ in }
    ) throws(FFmpegError) -> Result {
        let file =
            switch output {
            case let .file(path): try MediaOutput(path: path)
            case let .hls(playlist, mediaPath):
                try MediaOutput(path: playlist, container: .hls(segmentSeconds: settings.keyframeSeconds, mediaPath: mediaPath))
            }
        var streams: [Int: EncodedStream] = [:]
        var copies: [Int: StreamCopy] = [:]
        if plan.videoAction == .copy || plan.audioAction == .copy {
            // Containers such as AVI store no presentation times for copied packets.
            input.context.pointee.flags |= AVFMT_FLAG_GENPTS
        }
        for (index, action) in [(plan.video.index, plan.videoAction), plan.audio.map { ($0.index, plan.audioAction ?? .copy) }].compactMap({ $0 }) {
            guard let source = input.context.pointee.streams[index] else { continue }
            if action == .copy {
                copies[index] = try StreamCopy(source, into: file)
            } else if index == plan.video.index {
                streams[index] = try videoEncoder(input, source, plan: plan, into: file)
            } else {
                streams[index] = try audioEncoder(source, into: file)
            }
        }
        try file.writeHeader()

        var packet = lazy_av_packet_alloc()()
        defer { lazy_av_packet_free()(&packet) }
        guard let packet else { throw FFmpegError(function: "av_packet_alloc", code: -12) }
        let duration = input.durationSeconds ?? 0
        var reported = 0.0
        // The rendition starts at 0, as players expect: the container's start (an MPEG program
        // stream's half second, an edit list's offset) is taken off every timestamp.
        let start = input.context.pointee.start_time == docpreview_nopts_value() ? 0 : input.context.pointee.start_time
        let offsets = (0..<input.streamCount).map { index in
            lazy_av_rescale_q()(start, AVRational(num: 1, den: AV_TIME_BASE), input.context.pointee.streams[index]!.pointee.time_base)
        }
        while true {
            if input.isPastDeadline { throw FFmpegError(function: "av_read_frame", code: docpreview_averror_exit()) }
            let read = lazy_av_read_frame()(input.context, packet)
            if read == docpreview_averror_exit() { throw FFmpegError(function: "av_read_frame", code: read) }
            // The end of the file, or a read error at the end of a truncated one: what was read is kept.
            if read < 0 { break }
            defer { lazy_av_packet_unref()(packet) }
            let index = Int(packet.pointee.stream_index)
            guard streams[index] != nil || copies[index] != nil else { continue }
            if lazy_av_packet_get_side_data()(packet, AV_PKT_DATA_ENCRYPTION_INFO, nil) != nil { throw .encrypted }
            if packet.pointee.pts != docpreview_nopts_value() { packet.pointee.pts -= offsets[index] }
            if packet.pointee.dts != docpreview_nopts_value() { packet.pointee.dts -= offsets[index] }
            if let copy = copies[index] {
                try copy.write(packet, to: file)
            } else if let stream = streams[index] {
                try stream.send(packet, to: file)
            }
            let reached = max(streams.values.map(\.reachedSeconds).max() ?? 0, copies.values.map(\.reachedSeconds).max() ?? 0)
            if duration > 0 && reached - reported >= duration / 100 {
                reported = reached
                progress(min(1, reached / duration))
            }
        }
        for stream in streams.values { try stream.send(nil, to: file) }
        // A file whose video gave nothing (an init segment, a header without samples) has no rendition.
        guard (streams[plan.video.index]?.packetsWritten ?? copies[plan.video.index]?.packetsWritten ?? 0) > 0 else {
            throw FFmpegError(function: "no video frame decoded", code: docpreview_averror_invaliddata())
        }
        try file.finish()
        progress(1)
        let written = max(streams.values.map(\.reachedSeconds).max() ?? 0, copies.values.map(\.reachedSeconds).max() ?? 0)
        let codecs = (0..<Int(file.context.pointee.nb_streams)).compactMap {
            file.context.pointee.streams[$0].flatMap { CodecString.of($0.pointee.codecpar) }
        }
        let rates = (0..<Int(file.context.pointee.nb_streams)).compactMap { index -> Double? in
            guard let stream = file.context.pointee.streams[index], stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
                return nil
            }
            let rate = stream.pointee.avg_frame_rate
            return rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
        }
        return Result(plan: plan, durationSeconds: written, codecs: codecs.joined(separator: ","), frameRate: rates.first)
    }

    /// The video chain: decoder, then rotation, scaling to the planned size, tone-mapping for HDR
    /// and 8-bit 4:2:0, the mark burned in, then libx264 at the settings' preset and CRF.
    private func videoEncoder(
        _ input: MediaInput, _ source: UnsafeMutablePointer<AVStream>, plan: RenditionPlan,
        into file: MediaOutput
    ) throws(FFmpegError) -> EncodedStream {
        let decoder = try CodecContext(decoding: source)
        guard let x264 = lazy_avcodec_find_encoder_by_name()("libx264") else {
            throw FFmpegError(function: "avcodec_find_encoder_by_name(libx264)", code: docpreview_averror_invaliddata())
        }
        let encoder = try CodecContext(x264)
        let context = encoder.context
        var rate = lazy_av_guess_frame_rate()(input.context, source, nil)
        if rate.num <= 0 || rate.den <= 0 || Double(rate.num) / Double(rate.den) > 240 { rate = AVRational(num: 30, den: 1) }
        context.pointee.width = Int32(plan.width)
        context.pointee.height = Int32(plan.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.time_base = source.pointee.time_base
        context.pointee.framerate = rate
        context.pointee.gop_size = Int32(max(1, (settings.keyframeSeconds * Double(rate.num) / Double(rate.den)).rounded()))
        context.pointee.color_range = AVCOL_RANGE_MPEG
        if let maxBitrate {
            context.pointee.rc_max_rate = Int64(maxBitrate)
            context.pointee.rc_buffer_size = Int32(clamping: maxBitrate * 2)
        }
        let parameters = source.pointee.codecpar.pointee
        if plan.video.dynamicRange == .sdr {
            context.pointee.color_primaries = parameters.color_primaries
            context.pointee.color_trc = parameters.color_trc
            context.pointee.colorspace = parameters.color_space
        } else {
            context.pointee.color_primaries = AVCOL_PRI_BT709
            context.pointee.color_trc = AVCOL_TRC_BT709
            context.pointee.colorspace = AVCOL_SPC_BT709
        }
        if file.wantsGlobalHeaders { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open([("preset", settings.preset), ("crf", String(settings.crf)), ("profile", "high")])
        let stream = try file.addStream()
        try FFmpegError.check(lazy_avcodec_parameters_from_context()(stream.pointee.codecpar, context), "avcodec_parameters_from_context")
        stream.pointee.time_base = context.pointee.time_base
        stream.pointee.avg_frame_rate = rate

        let filters = Self.videoFilters(plan)
        let timeBase = source.pointee.time_base
        return try EncodedStream(inputIndex: plan.video.index, decoder: decoder, encoder: encoder, output: stream, mark: mark) { frame in
            let format = lazy_av_get_pix_fmt_name()(AVPixelFormat(frame.pointee.format)).map { String(cString: $0) } ?? "yuv420p"
            let aspect = frame.pointee.sample_aspect_ratio
            return "buffer=video_size=\(frame.pointee.width)x\(frame.pointee.height):pix_fmt=\(format)"
                + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(max(aspect.num, 1))/\(max(aspect.den, 1)),"
                + filters + ",buffersink"
        }
    }

    /// The filters between a video's decoder and its encoder.
    static func videoFilters(_ plan: RenditionPlan) -> String {
        videoFilters(for: plan.video, width: plan.width, height: plan.height)
    }

    /// The filters that make `video`'s decoded frames upright, `width`×`height` with square pixels,
    /// SDR (tone-mapped from HDR) and 8-bit 4:2:0, by `scaling` (a swscale algorithm).
    static func videoFilters(for video: VideoStream, width: Int, height: Int, scaling: String = "bicubic") -> String {
        var filters: [String] = []
        switch video.rotation {
        case 90: filters.append("transpose=clock")
        case 180: filters.append(contentsOf: ["hflip", "vflip"])
        case 270: filters.append("transpose=cclock")
        default: break
        }
        filters.append("scale=\(width):\(height):flags=\(scaling)")
        filters.append("setsar=1")
        if video.dynamicRange != .sdr {
            // To linear light from the source's transfer, to BT.709 primaries, tone-mapped (Hable,
            // as Jellyfin and mpv default to), then BT.709's transfer in 16-bit RGB, and BT.709's
            // matrix in limited range by swscale: zimg 3.0.4's own RGB-to-YUV matrix made the luma
            // ~30 % too dark on some machines (an AVX-512 EPYC: 75.8 where the RGB gives 107.7),
            // right on others; swscale's gives 108.0 there.
            let transfer = video.dynamicRange == .pq ? "smpte2084" : "arib-std-b67"
            filters.append(contentsOf: [
                "zscale=tin=\(transfer):min=2020_ncl:pin=2020:t=linear:npl=100", "format=gbrpf32le",
                "zscale=p=bt709", "tonemap=tonemap=hable:desat=0", "zscale=t=bt709", "format=gbrp16le",
                "scale=out_color_matrix=bt709:out_range=limited"
            ])
        }
        filters.append("format=yuv420p")
        return filters.joined(separator: ",")
    }

    /// The audio chain: decoder, resampled to stereo (48 kHz, or 44.1 kHz when the source has it)
    /// in frames of the encoder's size, then FFmpeg's AAC-LC encoder at the settings' bit rate.
    private func audioEncoder(_ source: UnsafeMutablePointer<AVStream>, into file: MediaOutput) throws(FFmpegError) -> EncodedStream {
        let decoder = try CodecContext(decoding: source)
        guard let aac = lazy_avcodec_find_encoder()(AV_CODEC_ID_AAC) else {
            throw FFmpegError(function: "avcodec_find_encoder(aac)", code: docpreview_averror_invaliddata())
        }
        let encoder = try CodecContext(aac)
        let context = encoder.context
        let rate: Int32 = source.pointee.codecpar.pointee.sample_rate == 44_100 ? 44_100 : 48_000
        context.pointee.sample_rate = rate
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        lazy_av_channel_layout_default()(&context.pointee.ch_layout, 2)
        context.pointee.bit_rate = Int64(settings.audioBitrate)
        context.pointee.time_base = AVRational(num: 1, den: rate)
        if file.wantsGlobalHeaders { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try encoder.open()
        let stream = try file.addStream()
        try FFmpegError.check(lazy_avcodec_parameters_from_context()(stream.pointee.codecpar, context), "avcodec_parameters_from_context")
        stream.pointee.time_base = context.pointee.time_base

        let timeBase = source.pointee.time_base
        return try EncodedStream(inputIndex: Int(source.pointee.index), decoder: decoder, encoder: encoder, output: stream) { frame in
            let format = lazy_av_get_sample_fmt_name()(AVSampleFormat(frame.pointee.format)).map { String(cString: $0) } ?? "fltp"
            return "abuffer=time_base=\(timeBase.num)/\(timeBase.den):sample_rate=\(frame.pointee.sample_rate)"
                + ":sample_fmt=\(format):channel_layout=\(Self.layoutName(frame)),"
                + "aresample=\(rate),aformat=sample_fmts=fltp:channel_layouts=stereo,abuffersink"
        }
    }

    /// The frame's channel layout by name; a layout of unspecified order by its default for the count.
    private static func layoutName(_ frame: UnsafeMutablePointer<AVFrame>) -> String {
        var layout = AVChannelLayout()
        defer { lazy_av_channel_layout_uninit()(&layout) }
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_NATIVE {
            _ = lazy_av_channel_layout_copy()(&layout, &frame.pointee.ch_layout)
        } else {
            lazy_av_channel_layout_default()(&layout, max(1, frame.pointee.ch_layout.nb_channels))
        }
        var name = [CChar](repeating: 0, count: 128)
        guard lazy_av_channel_layout_describe()(&layout, &name, name.count) > 0 else { return "stereo" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
