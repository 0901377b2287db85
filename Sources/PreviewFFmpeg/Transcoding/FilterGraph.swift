internal import CFFmpeg

/// A libavfilter graph with one source (`buffer` or `abuffer`) and one sink (`buffersink` or
/// `abuffersink`), built from one description such as `buffer=…,scale=1280:720,buffersink`.
///
/// Owns the graph (and through it every filter); frees it once, in `deinit`. Not thread-safe.
final class FilterGraph {
    private let graph: UnsafeMutablePointer<AVFilterGraph>
    private let source: UnsafeMutablePointer<AVFilterContext>
    let sink: UnsafeMutablePointer<AVFilterContext>

    /// Parses and configures `description`, a closed chain from a source to a sink.
    init(_ description: String) throws(FFmpegError) {
        guard let graph = lazy_avfilter_graph_alloc()() else { throw FFmpegError(function: "avfilter_graph_alloc", code: -12) }
        var freeing: UnsafeMutablePointer<AVFilterGraph>? = graph
        var inputs: UnsafeMutablePointer<AVFilterInOut>?
        var outputs: UnsafeMutablePointer<AVFilterInOut>?
        let parsed = lazy_avfilter_graph_parse_ptr()(graph, description, &inputs, &outputs, nil)
        lazy_avfilter_inout_free()(&inputs)
        lazy_avfilter_inout_free()(&outputs)
        let configured = parsed >= 0 ? lazy_avfilter_graph_config()(graph, nil) : parsed
        let filters = (0..<Int(graph.pointee.nb_filters)).compactMap { graph.pointee.filters[$0] }
        func named(_ names: Set<String>) -> UnsafeMutablePointer<AVFilterContext>? {
            filters.first { $0.pointee.filter.pointee.name.map { names.contains(String(cString: $0)) } ?? false }
        }
        guard configured >= 0, let source = named(["buffer", "abuffer"]), let sink = named(["buffersink", "abuffersink"]) else {
            lazy_avfilter_graph_free()(&freeing)
            throw FFmpegError(function: "avfilter_graph_config", code: configured < 0 ? configured : docpreview_averror_invaliddata())
        }
        self.graph = graph
        self.source = source
        self.sink = sink
    }

    deinit {
        var graph: UnsafeMutablePointer<AVFilterGraph>? = graph
        lazy_avfilter_graph_free()(&graph)
    }

    /// Feeds one frame (nil: the end of the stream). The frame keeps its data.
    func push(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
        try FFmpegError.check(
            lazy_av_buffersrc_add_frame_flags()(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
            "av_buffersrc_add_frame_flags")
    }

    /// The next filtered frame into `frame`: true when there was one, false when the graph needs
    /// more input or has ended.
    func pull(into frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> Bool {
        let received = lazy_av_buffersink_get_frame()(sink, frame)
        if received >= 0 { return true }
        if received == docpreview_averror_eagain() || received == docpreview_averror_eof() { return false }
        throw FFmpegError(function: "av_buffersink_get_frame", code: received)
    }

    /// The time base of the frames the sink gives.
    var outputTimeBase: AVRational { lazy_av_buffersink_get_time_base()(sink) }

    /// Makes the audio sink give frames of exactly `samples` samples (the last one may be shorter).
    func setFrameSize(_ samples: Int32) { lazy_av_buffersink_set_frame_size()(sink, UInt32(samples)) }
}
