import CFFmpeg

/// An open media file (`AVFormatContext`), demuxed with its stream information read.
///
/// Owns the context and closes it in `deinit`. Not thread-safe: use from one task at a time.
public final class MediaInput {
    let context: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` and reads stream information. Throws ``FFmpegError`` when FFmpeg cannot.
    public init(path: String) throws(FFmpegError) {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpegError.check(avformat_open_input(&context, path, nil, nil), "avformat_open_input")
        guard let opened = context else { throw FFmpegError(function: "avformat_open_input", code: -1) }
        self.context = opened
        do {
            try FFmpegError.check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info")
        } catch {
            var closing: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&closing)
            throw error
        }
    }

    deinit {
        var closing: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&closing)
    }

    /// Number of streams (video, audio, subtitles, data) in the container.
    public var streamCount: Int { Int(context.pointee.nb_streams) }

    /// The container's duration in seconds, when it declares one.
    public var durationSeconds: Double? {
        let duration = context.pointee.duration
        guard duration != docpreview_nopts_value(), duration > 0 else { return nil }
        return Double(duration) / Double(AV_TIME_BASE)
    }
}
