internal import CFFmpeg
import PreviewCore

/// One input stream re-encoded into one output stream: decoder → filter graph → encoder.
///
/// The graph is built from the first decoded frame's shape and rebuilt when the shape changes
/// mid-stream (a WebM that switches resolution, a broadcast that changes its audio layout); the
/// encoder is opened up front, so the output's header can be written before the first frame.
/// Owns its codecs, graph, frames and packet; frees them once, in `deinit`. Not thread-safe.
final class EncodedStream {
    let inputIndex: Int
    private let decoder: CodecContext
    private let encoder: CodecContext
    private let output: UnsafeMutablePointer<AVStream>
    /// The graph's description for frames of a shape (source, filters, sink).
    private let describe: (UnsafeMutablePointer<AVFrame>) -> String
    private let isAudio: Bool
    /// Burned into every filtered video frame before it is encoded.
    private let mark: FrameMark?
    private var graph: FilterGraph?
    private var graphShape: [Int64] = []
    private let decoded: UnsafeMutablePointer<AVFrame>
    private let filtered: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    /// The last timestamp given to the encoder (encoder time base): video frames must increase.
    private var lastTimestamp = Int64.min
    /// The stream time reached, in seconds (for progress).
    private(set) var reachedSeconds = 0.0
    /// Packets the encoder gave and the file took.
    private(set) var packetsWritten = 0

    init(
        inputIndex: Int, decoder: CodecContext, encoder: CodecContext, output: UnsafeMutablePointer<AVStream>, mark: FrameMark? = nil,
        describe: @escaping (UnsafeMutablePointer<AVFrame>) -> String
    ) throws(FFmpegError) {
        var decoded = lazy_av_frame_alloc()()
        var filtered = lazy_av_frame_alloc()()
        var packet = lazy_av_packet_alloc()()
        guard let decodedFrame = decoded, let filteredFrame = filtered, let allocatedPacket = packet else {
            lazy_av_frame_free()(&decoded)
            lazy_av_frame_free()(&filtered)
            lazy_av_packet_free()(&packet)
            throw FFmpegError(function: "av_frame_alloc", code: -12)
        }
        self.inputIndex = inputIndex
        self.decoder = decoder
        self.encoder = encoder
        self.output = output
        self.describe = describe
        self.mark = mark
        self.decoded = decodedFrame
        self.filtered = filteredFrame
        self.packet = allocatedPacket
        isAudio = encoder.context.pointee.codec_type == AVMEDIA_TYPE_AUDIO
    }

    deinit {
        // A stream given up midway (a deadline, a damaged packet, a full disk) still drains its
        // encoder, the packets thrown away: libx264 closed with frames still in its frame threads
        // and lookahead does not free all of them. A drained encoder gives nothing more here.
        _ = lazy_avcodec_send_frame()(encoder.context, nil)
        while lazy_avcodec_receive_packet()(encoder.context, packet) == 0 { lazy_av_packet_unref()(packet) }
        var decoded: UnsafeMutablePointer<AVFrame>? = decoded
        lazy_av_frame_free()(&decoded)
        var filtered: UnsafeMutablePointer<AVFrame>? = filtered
        lazy_av_frame_free()(&filtered)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        lazy_av_packet_free()(&packet)
    }

    /// Decodes `input` (nil: the end of the stream, which flushes everything) and writes what
    /// comes out to `file`. A damaged packet is skipped: the decoder resynchronises on the next.
    func send(_ input: UnsafeMutablePointer<AVPacket>?, to file: MediaOutput) throws(FFmpegError) {
        _ = lazy_avcodec_send_packet()(decoder.context, input)
        while lazy_avcodec_receive_frame()(decoder.context, decoded) == 0 {
            decoded.pointee.pts = decoded.pointee.best_effort_timestamp
            defer { lazy_av_frame_unref()(decoded) }
            try filter(decoded, to: file)
        }
        guard input == nil else { return }
        try flushGraph(to: file)
        try encode(nil, to: file)
    }

    private func filter(_ frame: UnsafeMutablePointer<AVFrame>, to file: MediaOutput) throws(FFmpegError) {
        let shape =
            isAudio
            ? [
                Int64(frame.pointee.format), Int64(frame.pointee.sample_rate), Int64(frame.pointee.ch_layout.nb_channels),
                Int64(bitPattern: frame.pointee.ch_layout.u.mask)
            ]
            : [Int64(frame.pointee.format), Int64(frame.pointee.width), Int64(frame.pointee.height)]
        if graph == nil || shape != graphShape {
            try flushGraph(to: file)
            let rebuilt = try FilterGraph(describe(frame))
            if isAudio { rebuilt.setFrameSize(encoder.context.pointee.frame_size) }
            graph = rebuilt
            graphShape = shape
        }
        try graph?.push(frame)
        try drainGraph(to: file)
    }

    /// Ends the current graph (if any) and encodes what it still held.
    private func flushGraph(to file: MediaOutput) throws(FFmpegError) {
        guard let graph else { return }
        try graph.push(nil)
        try drainGraph(to: file)
        self.graph = nil
    }

    private func drainGraph(to file: MediaOutput) throws(FFmpegError) {
        guard let graph else { return }
        let timeBase = graph.outputTimeBase
        while try graph.pull(into: filtered) {
            defer { lazy_av_frame_unref()(filtered) }
            let encoderBase = encoder.context.pointee.time_base
            var timestamp =
                filtered.pointee.pts == docpreview_nopts_value()
                ? lastTimestamp &+ 1 : lazy_av_rescale_q()(filtered.pointee.pts, timeBase, encoderBase)
            if timestamp <= lastTimestamp {
                // A video frame that does not advance (duplicated or disordered timestamps in a
                // damaged file) is dropped; audio is moved on, so no sound is lost.
                guard isAudio else { continue }
                timestamp = lastTimestamp + 1
            }
            filtered.pointee.pts = timestamp
            filtered.pointee.pict_type = AV_PICTURE_TYPE_NONE
            lastTimestamp = isAudio ? timestamp + Int64(filtered.pointee.nb_samples) - 1 : timestamp
            reachedSeconds = Double(timestamp) * Double(encoderBase.num) / Double(encoderBase.den)
            if let mark, !isAudio { try burn(mark, into: filtered) }
            try encode(filtered, to: file)
        }
    }

    /// Burns `mark` into the luma of `frame`, made writable first (the graph may still hold its
    /// buffers). A frame of another size or format is an error, never a frame sent unmarked.
    private func burn(_ mark: FrameMark, into frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        guard frame.pointee.width == mark.width, frame.pointee.height == mark.height, frame.pointee.format == AV_PIX_FMT_YUV420P.rawValue
        else { throw FFmpegError(function: "a watermarked frame's shape", code: docpreview_averror_invaliddata()) }
        try FFmpegError.check(lazy_av_frame_make_writable()(frame), "av_frame_make_writable")
        guard let luma = frame.pointee.data.0 else {
            throw FFmpegError(function: "a watermarked frame's luma", code: docpreview_averror_invaliddata())
        }
        mark.burn(luma: luma, linesize: Int(frame.pointee.linesize.0))
    }

    /// Sends `frame` (nil: flush) to the encoder and writes the packets it gives.
    private func encode(_ frame: UnsafeMutablePointer<AVFrame>?, to file: MediaOutput) throws(FFmpegError) {
        try FFmpegError.check(lazy_avcodec_send_frame()(encoder.context, frame), "avcodec_send_frame")
        while true {
            let received = lazy_avcodec_receive_packet()(encoder.context, packet)
            if received == docpreview_averror_eagain() || received == docpreview_averror_eof() { return }
            try FFmpegError.check(received, "avcodec_receive_packet")
            lazy_av_packet_rescale_ts()(packet, encoder.context.pointee.time_base, output.pointee.time_base)
            packet.pointee.stream_index = output.pointee.index
            try file.write(packet)
            packetsWritten += 1
        }
    }
}
