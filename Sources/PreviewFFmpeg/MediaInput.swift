internal import CFFmpeg
import Dispatch

/// An open media file (`AVFormatContext`) with its stream information read, under a wall-clock
/// deadline that FFmpeg's interrupt callback enforces on every blocking read.
///
/// FFmpeg opens exactly what it is given: the demuxer is the one named (or one of ``demuxers``),
/// the only protocol is `file`, and the file is the only thing opened — a playlist, a concat
/// script or a reference inside the file cannot make FFmpeg read anything else.
///
/// Owns the context, the deadline and the open guard; frees all three once, in `deinit` (also
/// when the initialiser throws after the context is open). Not thread-safe: use from one task at a time.
package final class MediaInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    /// Monotonic nanoseconds after which I/O is interrupted; read by the C callback through `opaque`.
    private let deadline: UnsafeMutablePointer<UInt64>
    /// Refuses every open after the file's own (see `docpreview_open_first_only_install`).
    private let openGuard: UnsafeMutablePointer<docpreview_open_guard>

    /// Every demuxer a file may be read with: containers of video and audio that carry their
    /// media inside them. Playlists (hls, dash), scripts (concat, ffconcat), image sequences
    /// (image2) and everything else FFmpeg can probe are left out.
    package static let demuxers = [
        "mov", "avi", "matroska", "flv", "asf", "mpeg", "mpegts", "ogg", "ivf",
        "mp3", "wav", "flac", "aac", "amr"
    ]

    /// Opens `path` with the demuxer `format` (one of ``demuxers``; nil probes among them only) and
    /// reads stream information, giving up after `timeoutSeconds`.
    /// Throws ``FFmpegError`` when FFmpeg cannot (``FFmpegError/isInterrupted`` on time-out).
    package init(path: String, format: String? = nil, timeoutSeconds: Double? = nil) throws(FFmpegError) {
        FFmpegLibrary.quiet
        guard format.map(Self.demuxers.contains) ?? true else { throw FFmpegError(function: "av_find_input_format", code: -22) }
        let demuxer = format.flatMap { lazy_av_find_input_format()($0) }
        if format != nil && demuxer == nil { throw FFmpegError(function: "av_find_input_format", code: -22) }
        guard let context = lazy_avformat_alloc_context()() else {
            throw FFmpegError(function: "avformat_alloc_context", code: -12)
        }
        deadline = .allocate(capacity: 1)
        deadline.initialize(to: timeoutSeconds.map { DispatchTime.now().uptimeNanoseconds + UInt64($0 * 1e9) } ?? .max)
        openGuard = .allocate(capacity: 1)
        context.pointee.interrupt_callback = AVIOInterruptCB(
            callback: interruptWhenPastDeadline,
            opaque: UnsafeMutableRawPointer(deadline))
        docpreview_open_first_only_install(context, openGuard)
        var options: OpaquePointer? = nil
        lazy_av_dict_set()(&options, "format_whitelist", format ?? Self.demuxers.joined(separator: ","), 0)
        lazy_av_dict_set()(&options, "protocol_whitelist", "file", 0)
        var opening: UnsafeMutablePointer<AVFormatContext>? = context
        let opened = lazy_avformat_open_input()(&opening, path, demuxer, &options)
        lazy_av_dict_free()(&options)
        guard opened >= 0, let ready = opening else {
            // avformat_open_input frees the context it was given when it fails.
            deadline.deallocate()
            openGuard.deallocate()
            throw FFmpegError(function: "avformat_open_input", code: opened)
        }
        self.context = ready
        // From here on `deinit` runs when this initialiser throws, and closes the input: closing it
        // here as well would free the context twice.
        try FFmpegError.check(lazy_avformat_find_stream_info()(context, nil), "avformat_find_stream_info")
    }

    deinit {
        var closing: UnsafeMutablePointer<AVFormatContext>? = context
        lazy_avformat_close_input()(&closing)
        deadline.deallocate()
        openGuard.deallocate()
    }

    /// True once the deadline has passed.
    package var isPastDeadline: Bool { DispatchTime.now().uptimeNanoseconds > deadline.pointee }

    /// Number of streams (video, audio, subtitles, data) in the container.
    package var streamCount: Int { Int(context.pointee.nb_streams) }

    /// The container's duration in seconds, when it declares one.
    package var durationSeconds: Double? {
        let duration = context.pointee.duration
        guard duration != docpreview_nopts_value(), duration > 0 else { return nil }
        return Double(duration) / Double(AV_TIME_BASE)
    }

    /// The demuxer FFmpeg read the file with (`mov,mp4,m4a,3gp,3g2,mj2`, `avi`, `matroska,webm`, …).
    package var formatName: String {
        context.pointee.iformat.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? ""
    }

    /// The audio stream a rendition carries: the one marked default, else the first.
    package func bestAudioStream() -> AudioStream? {
        var first: AudioStream?
        for index in 0..<streamCount {
            guard let stream = context.pointee.streams[index], stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            if stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0 { return AudioStream(stream) }
            if first == nil { first = AudioStream(stream) }
        }
        return first
    }

    /// The video stream to preview: the largest that is a real video track (cover art attached to
    /// audio files does not count). Nil when there is none.
    package func bestVideoStream() -> VideoStream? {
        var best: VideoStream?
        for index in 0..<streamCount {
            guard let stream = context.pointee.streams[index],
                stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
                stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0
            else { continue }
            let candidate = VideoStream(stream)
            if best.map({ candidate.width * candidate.height > $0.width * $0.height }) ?? true { best = candidate }
        }
        return best
    }
}

/// FFmpeg calls this during blocking I/O; non-zero aborts the operation with AVERROR_EXIT.
private func interruptWhenPastDeadline(_ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let opaque else { return 0 }
    return DispatchTime.now().uptimeNanoseconds > opaque.load(as: UInt64.self) ? 1 : 0
}

/// Facts about one video stream, read from its codec parameters and side data.
package struct VideoStream: Sendable {
    package let index: Int
    /// Coded size, before rotation and aspect correction.
    package let width: Int
    package let height: Int
    /// Sample (pixel) aspect ratio; 1 for square pixels.
    package let pixelAspect: Double
    /// Clockwise degrees to rotate for display (from the display matrix), a multiple of 90.
    package let rotation: Int
    package let codecName: String
    /// The decoder's pixel format (`yuv420p`, `yuv420p10le`, …), when the stream declares one.
    package let pixelFormat: String?
    /// High dynamic range by its transfer function (PQ or HLG), which a rendition tone-maps to SDR.
    package let dynamicRange: DynamicRange
    /// The container declares content protection (CENC `pssh`/`tenc`).
    package let declaresEncryption: Bool
    let codecID: AVCodecID
    let timeBase: AVRational
    let startTime: Int64

    /// How a stream's pictures map to light.
    package enum DynamicRange: String, Sendable {
        case sdr
        /// SMPTE ST 2084 (HDR10, Dolby Vision's base layer).
        case pq
        /// ARIB STD-B67 hybrid log-gamma (what iPhones record as HDR).
        case hlg
    }

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        pixelFormat = parameters.format >= 0 ? lazy_av_get_pix_fmt_name()(AVPixelFormat(parameters.format)).map { String(cString: $0) } : nil
        dynamicRange =
            switch parameters.color_trc {
            case AVCOL_TRC_SMPTE2084: .pq
            case AVCOL_TRC_ARIB_STD_B67: .hlg
            default: .sdr
            }
        width = Int(parameters.width)
        height = Int(parameters.height)
        let aspect = parameters.sample_aspect_ratio
        pixelAspect = aspect.num > 0 && aspect.den > 0 ? Double(aspect.num) / Double(aspect.den) : 1
        codecID = parameters.codec_id
        codecName = lazy_avcodec_get_name()(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
        timeBase = stream.pointee.time_base
        startTime = stream.pointee.start_time
        if let matrix = lazy_av_stream_get_side_data()(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) {
            let counterClockwise = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { lazy_av_display_rotation_get()($0) }
            let clockwise = counterClockwise.isNaN ? 0 : Int((-counterClockwise / 90).rounded()) * 90
            rotation = ((clockwise % 360) + 360) % 360
        } else {
            rotation = 0
        }
        declaresEncryption = lazy_av_stream_get_side_data()(stream, AV_PKT_DATA_ENCRYPTION_INIT_INFO, nil) != nil
    }

    /// The size as displayed: corrected for non-square pixels, then rotated.
    package var displaySize: (width: Double, height: Double) {
        let shown = (width: Double(width) * pixelAspect, height: Double(height))
        return rotation % 180 == 0 ? shown : (shown.height, shown.width)
    }

    /// Seconds for a timestamp in this stream's time base, from the stream's start.
    func seconds(_ timestamp: Int64) -> Double? {
        guard timestamp != docpreview_nopts_value(), timeBase.den != 0 else { return nil }
        let start = startTime == docpreview_nopts_value() ? 0 : startTime
        return Double(timestamp - start) * Double(timeBase.num) / Double(timeBase.den)
    }
}

/// Facts about one audio stream.
package struct AudioStream: Sendable {
    package let index: Int
    package let codecName: String
    package let channels: Int
    package let sampleRate: Int
    let codecID: AVCodecID

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        let parameters = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        codecID = parameters.codec_id
        codecName = lazy_avcodec_get_name()(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
        channels = Int(parameters.ch_layout.nb_channels)
        sampleRate = Int(parameters.sample_rate)
    }
}
