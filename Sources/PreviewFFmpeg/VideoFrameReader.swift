internal import CFFmpeg
import PreviewCore

/// Decodes one video stream of a ``MediaInput`` frame by frame, from the start, with a single
/// decoder thread unless asked for more (one is fastest for first frames; parallelism belongs
/// across files, but a teaser's seconds from keyframes far apart decode faster on two).
///
/// Owns the codec context, one packet, one frame and the scaler; frees them in `deinit`.
/// Not thread-safe.
package final class VideoFrameReader {
    package let stream: VideoStream
    private let input: MediaInput
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var scaler: OpaquePointer?
    private var signatureScaler: OpaquePointer?
    private var draining = false
    private let maxPackets: Int

    /// Packets of this stream read so far.
    package private(set) var packetsRead = 0
    /// Frames decoded so far.
    package private(set) var framesDecoded = 0
    /// A packet carried CENC encryption info: what decodes is noise, not the picture.
    package private(set) var sawEncryptedPacket = false

    /// Opens a decoder for `stream`. Throws ``FFmpegError`` (``FFmpegError/isMissingDecoder``
    /// when FFmpeg has no decoder for the codec). `skimming` decodes only the frames others refer to
    /// (of H.264, its I- and P-frames), without the deblocking filter: a frame every two to four at
    /// a third to half the cost, for looking at a whole video's shots rather than at one of its pictures.
    /// `threads` decoder threads (frame threads for H.264).
    package init(input: MediaInput, stream: VideoStream, maxPackets: Int = 2_000, skimming: Bool = false, threads: Int = 1) throws(FFmpegError) {
        guard let decoder = lazy_avcodec_find_decoder()(stream.codecID) else {
            throw FFmpegError(function: "avcodec_find_decoder", code: docpreview_averror_invaliddata())
        }
        guard let codec = lazy_avcodec_alloc_context3()(decoder) else { throw FFmpegError(function: "avcodec_alloc_context3", code: -12) }
        var freeing: UnsafeMutablePointer<AVCodecContext>? = codec
        do {
            try FFmpegError.check(
                lazy_avcodec_parameters_to_context()(codec, input.context.pointee.streams[stream.index]!.pointee.codecpar),
                "avcodec_parameters_to_context")
            codec.pointee.thread_count = Int32(threads)
            if skimming {
                // H.264 encoders refer to B-frames from B-frames only (x264's pyramid): all of them
                // can go, leaving the I- and P-frames (one in three or four). Other codecs keep
                // their referenced B-frames (HEVC's low-delay B-frames are its P-frames).
                codec.pointee.skip_frame = stream.codecID == AV_CODEC_ID_H264 ? AVDISCARD_BIDIR : AVDISCARD_NONREF
                codec.pointee.skip_loop_filter = AVDISCARD_ALL
            }
            try FFmpegError.check(lazy_avcodec_open2()(codec, decoder, nil), "avcodec_open2")
        } catch {
            lazy_avcodec_free_context()(&freeing)
            throw error
        }
        var packet = lazy_av_packet_alloc()()
        var frame = lazy_av_frame_alloc()()
        guard let allocatedPacket = packet, let allocatedFrame = frame else {
            lazy_av_packet_free()(&packet)
            lazy_av_frame_free()(&frame)
            lazy_avcodec_free_context()(&freeing)
            throw FFmpegError(function: "av_packet_alloc", code: -12)
        }
        self.input = input
        self.stream = stream
        self.codec = codec
        self.packet = allocatedPacket
        self.frame = allocatedFrame
        self.maxPackets = maxPackets
    }

    deinit {
        var codec: UnsafeMutablePointer<AVCodecContext>? = codec
        lazy_avcodec_free_context()(&codec)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        lazy_av_packet_free()(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        lazy_av_frame_free()(&frame)
        lazy_sws_freeContext()(scaler)
        lazy_sws_freeContext()(signatureScaler)
    }

    /// Decodes the next frame. Returns its timestamp in seconds from the stream's start (0 when
    /// unknown), or nil at the end of the stream. Throws on read errors, time-out, or when the
    /// packet budget runs out.
    package func nextFrame() throws(FFmpegError) -> Double? {
        let again = docpreview_averror_eagain()
        while true {
            let received = lazy_avcodec_receive_frame()(codec, frame)
            if received == 0 {
                framesDecoded += 1
                return stream.seconds(frame.pointee.best_effort_timestamp) ?? 0
            }
            if received == docpreview_averror_eof() { return nil }
            guard received == again else { throw FFmpegError(function: "avcodec_receive_frame", code: received) }
            if draining { return nil }
            try feedOnePacket()
        }
    }

    /// The time of the keyframe at or before `seconds`, from the container's index (nil when it has
    /// none there): where a seek to `seconds` would land.
    package func keyframeSeconds(atOrBefore seconds: Double) -> Double? {
        guard let timestamp = timestamp(seconds), let avStream = input.context.pointee.streams[stream.index] else { return nil }
        let index = lazy_av_index_search_timestamp()(avStream, timestamp, AVSEEK_FLAG_BACKWARD)
        guard index >= 0, let entry = lazy_avformat_index_get_entry()(avStream, index) else { return nil }
        return stream.seconds(entry.pointee.timestamp)
    }

    /// Moves to the keyframe at or before `seconds` from the stream's start and empties the decoder,
    /// so the next ``nextFrame()`` decodes from there. False when the container cannot seek there.
    package func seek(toSeconds seconds: Double) -> Bool {
        guard let timestamp = timestamp(seconds),
            lazy_av_seek_frame()(input.context, Int32(stream.index), timestamp, AVSEEK_FLAG_BACKWARD) >= 0
        else { return false }
        lazy_avcodec_flush_buffers()(codec)
        draining = false
        return true
    }

    /// `seconds` from the stream's start in its time base.
    private func timestamp(_ seconds: Double) -> Int64? {
        guard stream.timeBase.num > 0, stream.timeBase.den > 0, seconds.isFinite else { return nil }
        let start = stream.startTime == docpreview_nopts_value() ? 0 : stream.startTime
        return start + Int64(seconds * Double(stream.timeBase.den) / Double(stream.timeBase.num))
    }

    /// Reads packets until one of this stream is sent to the decoder (or the end is signalled).
    private func feedOnePacket() throws(FFmpegError) {
        while true {
            if input.isPastDeadline { throw FFmpegError(function: "av_read_frame", code: docpreview_averror_exit()) }
            let read = lazy_av_read_frame()(input.context, packet)
            if read == docpreview_averror_exit() { throw FFmpegError(function: "av_read_frame", code: read) }
            if read < 0 {
                // End of file, or a read error at the end of a truncated file: flush what is buffered.
                draining = true
                lazy_avcodec_send_packet()(codec, nil)
                return
            }
            defer { lazy_av_packet_unref()(packet) }
            guard Int(packet.pointee.stream_index) == stream.index else { continue }
            packetsRead += 1
            if lazy_av_packet_get_side_data()(packet, AV_PKT_DATA_ENCRYPTION_INFO, nil) != nil { sawEncryptedPacket = true }
            guard packetsRead <= maxPackets else {
                throw FFmpegError(function: "decode budget of \(maxPackets) packets", code: docpreview_averror_invaliddata())
            }
            // A damaged packet is skipped; the decoder resynchronises on the next one.
            _ = lazy_avcodec_send_packet()(codec, packet)
            return
        }
    }

    /// Whether frames no other frame refers to are skipped (the lead-in from a keyframe to where
    /// the frames are wanted); may change between frames.
    var skipsUnreferenced = false {
        didSet { codec.pointee.skip_frame = skipsUnreferenced ? AVDISCARD_NONREF : AVDISCARD_DEFAULT }
    }

    /// The last decoded frame as the decoder gave it (valid until the next ``nextFrame()``).
    var decodedFrame: UnsafeMutablePointer<AVFrame> { frame }

    /// The last decoded frame, scaled to exactly `width`×`height` RGB.
    package func currentFrame(width: Int, height: Int) throws(FFmpegError) -> PixelBuffer {
        let source = frame.pointee
        guard source.width > 0, source.height > 0, source.format >= 0 else {
            throw FFmpegError(function: "decoded frame", code: docpreview_averror_invaliddata())
        }
        scaler = lazy_sws_getCachedContext()(
            scaler, source.width, source.height, AVPixelFormat(source.format),
            Int32(width), Int32(height), AV_PIX_FMT_RGB24, SWS_AREA, nil, nil, nil)
        guard let scaler else { throw FFmpegError(function: "sws_getCachedContext", code: docpreview_averror_invaliddata()) }
        // swscale's SIMD paths may write past a row's end: scale into padded rows, then pack.
        let stride = (width * 3 + 63) & ~63
        var padded = [UInt8](repeating: 0, count: stride * (height + 1))
        let scaled = padded.withUnsafeMutableBufferPointer { output -> Int32 in
            withUnsafePointer(to: frame.pointee.data) { planes in
                withUnsafePointer(to: frame.pointee.linesize) { strides in
                    planes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planePointers in
                        strides.withMemoryRebound(to: Int32.self, capacity: 8) { lineSizes in
                            var destination: [UnsafeMutablePointer<UInt8>?] = [output.baseAddress, nil, nil, nil]
                            var destinationStride: [Int32] = [Int32(stride), 0, 0, 0]
                            return lazy_sws_scale()(scaler, planePointers, lineSizes, 0, source.height, &destination, &destinationStride)
                        }
                    }
                }
            }
        }
        guard scaled == Int32(height) else { throw FFmpegError(function: "sws_scale", code: docpreview_averror_invaliddata()) }
        var packed = [UInt8]()
        packed.reserveCapacity(width * height * 3)
        for row in 0..<height { packed += padded[(row * stride)..<(row * stride + width * 3)] }
        return PixelBuffer(width: width, height: height, bands: 3, bytes: packed)
    }

    /// The last decoded frame's ``FrameSignature`` at `seconds`: scaled (bilinear, which is enough
    /// for cells this coarse) to 4 × 4 pixels a cell of Y, U and V, then averaged.
    package func currentSignature(seconds: Double) throws(FFmpegError) -> FrameSignature {
        let source = frame.pointee
        guard source.width > 0, source.height > 0, source.format >= 0 else {
            throw FFmpegError(function: "decoded frame", code: docpreview_averror_invaliddata())
        }
        let (columns, rows) = (FrameSignature.columns, FrameSignature.rows)
        let (width, height) = (columns * 4, rows * 4)
        signatureScaler = lazy_sws_getCachedContext()(
            signatureScaler, source.width, source.height, AVPixelFormat(source.format),
            Int32(width), Int32(height), AV_PIX_FMT_YUV444P, SWS_FAST_BILINEAR, nil, nil, nil)
        guard let signatureScaler else { throw FFmpegError(function: "sws_getCachedContext", code: docpreview_averror_invaliddata()) }
        // Rows padded as for currentFrame; one more row for SIMD overrun.
        let stride = (width + 63) & ~63
        let planeSize = stride * height
        var planes = [UInt8](repeating: 0, count: planeSize * 3 + stride)
        let scaled = planes.withUnsafeMutableBufferPointer { output -> Int32 in
            withUnsafePointer(to: frame.pointee.data) { sourcePlanes in
                withUnsafePointer(to: frame.pointee.linesize) { strides in
                    sourcePlanes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planePointers in
                        strides.withMemoryRebound(to: Int32.self, capacity: 8) { lineSizes in
                            let base = output.baseAddress!
                            var destination: [UnsafeMutablePointer<UInt8>?] = [base, base + planeSize, base + 2 * planeSize, nil]
                            var destinationStride: [Int32] = [Int32(stride), Int32(stride), Int32(stride), 0]
                            return lazy_sws_scale()(
                                signatureScaler, planePointers, lineSizes, 0, source.height, &destination, &destinationStride)
                        }
                    }
                }
            }
        }
        guard scaled == Int32(height) else { throw FFmpegError(function: "sws_scale", code: docpreview_averror_invaliddata()) }
        let cellCount = columns * rows
        var cells = [Float](repeating: 0, count: 3 * cellCount)
        for plane in 0..<3 {
            for y in 0..<height {
                let row = plane * planeSize + y * stride
                let first = plane * cellCount + (y / 4) * columns
                for x in 0..<width { cells[first + x / 4] += Float(planes[row + x]) }
            }
        }
        return FrameSignature(seconds: seconds, cells: cells.map { UInt8(($0 / 16).rounded()) })
    }
}
