internal import CFFmpeg

/// A stream copied packet by packet: timestamps moved to the output's time base, packets whose
/// decoding time does not advance (a damaged file) dropped, the stream's side data that says how
/// to show it kept (display matrix, HDR mastering and light levels, Dolby Vision, 360°, 3D).
final class StreamCopy {
    private let source: UnsafeMutablePointer<AVStream>
    private let output: UnsafeMutablePointer<AVStream>
    private var lastDecodingTime = Int64.min
    private(set) var reachedSeconds = 0.0
    private(set) var packetsWritten = 0

    init(_ source: UnsafeMutablePointer<AVStream>, into file: MediaOutput) throws(FFmpegError) {
        self.source = source
        output = try file.addStream()
        try FFmpegError.check(lazy_avcodec_parameters_copy()(output.pointee.codecpar, source.pointee.codecpar), "avcodec_parameters_copy")
        output.pointee.codecpar.pointee.codec_tag = 0
        output.pointee.time_base = source.pointee.time_base
        for kind in Self.presentationSideData {
            var size = 0
            if let data = lazy_av_stream_get_side_data()(source, kind, &size), size > 0,
                let copy = lazy_av_stream_new_side_data()(output, kind, size)
            {
                copy.update(from: data, count: size)
            }
        }
    }

    /// Side data that changes how a stream's pictures are shown.
    private static let presentationSideData: [AVPacketSideDataType] = [
        AV_PKT_DATA_DISPLAYMATRIX, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL,
        AV_PKT_DATA_DOVI_CONF, AV_PKT_DATA_SPHERICAL, AV_PKT_DATA_STEREO3D
    ]

    func write(_ packet: UnsafeMutablePointer<AVPacket>, to file: MediaOutput) throws(FFmpegError) {
        lazy_av_packet_rescale_ts()(packet, source.pointee.time_base, output.pointee.time_base)
        let none = docpreview_nopts_value()
        if packet.pointee.dts != none {
            guard packet.pointee.dts > lastDecodingTime else { return }
            lastDecodingTime = packet.pointee.dts
        }
        if packet.pointee.pts == none { packet.pointee.pts = packet.pointee.dts }
        let base = output.pointee.time_base
        if packet.pointee.pts != none { reachedSeconds = max(reachedSeconds, Double(packet.pointee.pts) * Double(base.num) / Double(base.den)) }
        packet.pointee.stream_index = output.pointee.index
        packet.pointee.pos = -1
        try file.write(packet)
        packetsWritten += 1
    }
}
