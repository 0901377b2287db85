internal import CFFmpeg

/// A failed FFmpeg call: the function, its return code and FFmpeg's own message.
package struct FFmpegError: Error, Sendable, CustomStringConvertible {
    package var function: String
    package var code: Int32
    package var message: String

    package var description: String { "\(function) failed (\(code)): \(message)" }

    /// True when FFmpeg has no decoder for the stream's codec.
    package var isMissingDecoder: Bool { function == "avcodec_find_decoder" }

    /// True when a packet carried CENC encryption info: what would decode is noise, not the picture.
    package var isEncrypted: Bool { function == Self.encrypted.function }

    /// A packet of an encrypted (DRM) stream was read.
    package static var encrypted: FFmpegError { FFmpegError(function: "encrypted packet", code: docpreview_averror_invaliddata()) }

    /// True when FFmpeg stopped because the interrupt callback asked it to.
    package var isInterrupted: Bool { code == docpreview_averror_exit() }

    /// The disk ran out under a write (`AVERROR(ENOSPC)`).
    package var isDiskFull: Bool { code == -ENOSPC }

    init(function: String, code: Int32) {
        self.function = function
        self.code = code
        var buffer = [CChar](repeating: 0, count: 256)
        if lazy_av_strerror()(code, &buffer, buffer.count) == 0 {
            message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            message = "unknown error"
        }
    }

    /// The funnel every FFmpeg return code goes through: negative values throw.
    @discardableResult
    static func check(_ result: Int32, _ function: String) throws(FFmpegError) -> Int32 {
        guard result >= 0 else { throw FFmpegError(function: function, code: result) }
        return result
    }
}

/// Process-wide FFmpeg settings.
package enum FFmpegLibrary {
    /// FFmpeg prints nothing to stderr; its messages reach callers through ``FFmpegError``. Set on
    /// first use of FFmpeg (``MediaInput`` opens with it), not at start: that would load libavutil.
    static let quiet: Void = lazy_av_log_set_level()(AV_LOG_QUIET)

    /// `libavformat/libavcodec/libswscale` versions, e.g. `avformat 59.27.100`.
    package static var versions: String {
        func dotted(_ version: UInt32) -> String { "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)" }
        return
            "avformat \(dotted(lazy_avformat_version()())), avcodec \(dotted(lazy_avcodec_version()())), swscale \(dotted(lazy_swscale_version()()))"
    }
}
