internal import CFFmpeg

/// A rendition being written (`AVFormatContext`, with its `AVIOContext` for a single file): an MP4
/// with `moov` first, or an HLS rendition (a playlist over byte ranges of one fragmented MP4).
///
/// Owns both; closes the file and frees the context once, in `deinit`, whether or not the output
/// was finished: the caller writes to a staged path and removes it when ``finish()`` was not reached.
/// Not thread-safe.
final class MediaOutput {
    /// What is written.
    enum Container {
        case mp4
        /// An MP4 whose every track has an edit list (``StreamClipper`` sets what it shows).
        case clip
        /// A media playlist at the output path over byte ranges of the fragmented MP4 at `mediaPath`
        /// (beside it): its init segment first, then segments cut at keyframes about every `segmentSeconds`.
        case hls(segmentSeconds: Double, mediaPath: String)
    }

    let context: UnsafeMutablePointer<AVFormatContext>
    private let container: Container
    /// Between the header and the trailer: the HLS muxer holds open files and buffers that only its
    /// trailer frees (FFmpeg 5.1's `hls_deinit` does not), so `deinit` writes it on the way out.
    private var writing = false

    /// Creates the output at `path` (truncating what is there).
    init(path: String, container: Container = .mp4) throws(FFmpegError) {
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let format = if case .hls = container { "hls" } else { "mp4" }
        try FFmpegError.check(lazy_avformat_alloc_output_context2()(&allocated, nil, format, path), "avformat_alloc_output_context2")
        guard let allocated else { throw FFmpegError(function: "avformat_alloc_output_context2", code: -12) }
        context = allocated
        self.container = container
        // From here `deinit` frees the context when this throws. The HLS muxer opens its own files.
        guard context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 else { return }
        var io: UnsafeMutablePointer<AVIOContext>?
        try FFmpegError.check(lazy_avio_open()(&io, path, AVIO_FLAG_WRITE), "avio_open")
        context.pointee.pb = io
    }

    deinit {
        // What the abandoned trailer writes goes with the staged output the caller removes.
        if writing, case .hls = container { _ = lazy_av_write_trailer()(context) }
        if context.pointee.pb != nil { lazy_avio_closep()(&context.pointee.pb) }
        lazy_avformat_free_context()(context)
    }

    /// Whether the container can carry `parameters`' codec as it is.
    func accepts(_ parameters: UnsafePointer<AVCodecParameters>) -> Bool {
        lazy_avformat_query_codec()(context.pointee.oformat, parameters.pointee.codec_id, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Whether encoders must put their headers (SPS/PPS, AudioSpecificConfig) in extradata.
    var wantsGlobalHeaders: Bool {
        (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0
    }

    func addStream() throws(FFmpegError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = lazy_avformat_new_stream()(context, nil) else { throw FFmpegError(function: "avformat_new_stream", code: -12) }
        return stream
    }

    /// Writes the header. An MP4's index (`moov`) goes before the media when the file is finished, so
    /// a player starts before the download ends (the muxer rewrites the file once); an HLS
    /// rendition is a VOD playlist of independent fMP4 segments, byte ranges of one file (a store
    /// keeps two files a rung, not one per segment).
    func writeHeader() throws(FFmpegError) {
        var options: OpaquePointer?
        switch container {
        case .mp4:
            lazy_av_dict_set()(&options, "movflags", "+faststart", 0)
        case .clip:
            lazy_av_dict_set()(&options, "movflags", "+faststart", 0)
            lazy_av_dict_set()(&options, "use_editlist", "1", 0)
        case let .hls(segmentSeconds, mediaPath):
            for (key, value) in [
                ("hls_time", String(segmentSeconds)), ("hls_playlist_type", "vod"), ("hls_segment_type", "fmp4"),
                ("hls_segment_filename", mediaPath), ("hls_flags", "single_file+independent_segments")
            ] {
                lazy_av_dict_set()(&options, key, value, 0)
            }
        }
        defer { lazy_av_dict_free()(&options) }
        try FFmpegError.check(lazy_avformat_write_header()(context, &options), "avformat_write_header")
        writing = true
    }

    /// Writes one packet in its stream's time base, interleaved; the packet is left empty.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) {
        try FFmpegError.check(lazy_av_interleaved_write_frame()(context, packet), "av_interleaved_write_frame")
    }

    /// Flushes what is interleaved and writes the index.
    func finish() throws(FFmpegError) {
        writing = false
        try FFmpegError.check(lazy_av_write_trailer()(context), "av_write_trailer")
    }
}

/// One `AVCodecContext` (a decoder or an encoder); frees it once, in `deinit`. Not thread-safe.
final class CodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>

    init(_ codec: UnsafePointer<AVCodec>) throws(FFmpegError) {
        guard let context = lazy_avcodec_alloc_context3()(codec) else { throw FFmpegError(function: "avcodec_alloc_context3", code: -12) }
        self.context = context
        self.codec = codec
    }

    /// A decoder for `stream` of `input`, with FFmpeg's own choice of threads.
    convenience init(decoding stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
        guard let decoder = lazy_avcodec_find_decoder()(stream.pointee.codecpar.pointee.codec_id) else {
            throw FFmpegError(function: "avcodec_find_decoder", code: docpreview_averror_invaliddata())
        }
        try self.init(decoder)
        try FFmpegError.check(lazy_avcodec_parameters_to_context()(context, stream.pointee.codecpar), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.thread_count = 0
        try open()
    }

    deinit {
        var freeing: UnsafeMutablePointer<AVCodecContext>? = context
        lazy_avcodec_free_context()(&freeing)
    }

    /// Opens the codec with `options` (the codec's private options, e.g. x264's `preset`).
    func open(_ options: [(String, String)] = []) throws(FFmpegError) {
        var dictionary: OpaquePointer?
        for (key, value) in options { lazy_av_dict_set()(&dictionary, key, value, 0) }
        defer { lazy_av_dict_free()(&dictionary) }
        try FFmpegError.check(lazy_avcodec_open2()(context, codec, &dictionary), "avcodec_open2")
    }
}
