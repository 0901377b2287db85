#ifndef DOCPREVIEW_CFFMPEG_SHIM_H
#define DOCPREVIEW_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libswscale/swscale.h>

#include <libavutil/macros.h>
#include <native_loader.h>

/// FFmpeg is opened on first use (see native_loader.h); the sonames follow the headers' major versions.
#define DOCPREVIEW_AVFORMAT "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)
#define DOCPREVIEW_AVCODEC "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR)
#define DOCPREVIEW_SWSCALE "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR)
#define DOCPREVIEW_AVUTIL "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR)
#define DOCPREVIEW_AVFILTER "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_alloc_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_open_input)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_find_stream_info)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_close_input)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_version)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_read_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_stream_get_side_data)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_find_input_format)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_seek_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_index_search_timestamp)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_index_get_entry)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_alloc_output_context2)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_new_stream)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_write_header)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_free_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_interleaved_write_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_write_trailer)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_guess_frame_rate)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_stream_new_side_data)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avio_open)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avio_closep)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_query_codec)

DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_find_decoder)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_alloc_context3)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_parameters_to_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_open2)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_send_packet)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_receive_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_free_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_flush_buffers)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_version)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_get_name)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_alloc)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_get_side_data)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_rescale_ts)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_find_encoder)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_find_encoder_by_name)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_receive_packet)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_send_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_parameters_copy)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_parameters_from_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_profile_name)

DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_getCachedContext)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_scale)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_freeContext)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, swscale_version)

DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_alloc)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_strerror)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_log_set_level)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_display_rotation_get)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_dict_set)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_dict_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_make_writable)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_opt_set)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_rescale_q)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_get_sample_fmt_name)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_get_pix_fmt_name)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_channel_layout_default)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_channel_layout_copy)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_channel_layout_describe)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_channel_layout_uninit)

DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_graph_alloc)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_graph_parse_ptr)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_graph_config)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_graph_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_inout_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, avfilter_version)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, av_buffersrc_add_frame_flags)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, av_buffersink_get_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, av_buffersink_set_frame_size)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFILTER, av_buffersink_get_time_base)

/// AVERROR_EOF is a cast macro (FFERRTAG); Swift cannot import it.
static inline int docpreview_averror_eof(void) { return AVERROR_EOF; }

/// AVERROR(EAGAIN) is a function-like macro.
static inline int docpreview_averror_eagain(void) { return AVERROR(EAGAIN); }

/// AVERROR_EXIT (returned when the interrupt callback stops I/O) is a cast macro.
static inline int docpreview_averror_exit(void) { return AVERROR_EXIT; }

/// AVERROR_INVALIDDATA is a cast macro (FFERRTAG).
static inline int docpreview_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }

/// AV_NOPTS_VALUE is a cast macro over INT64_C.
static inline int64_t docpreview_nopts_value(void) { return AV_NOPTS_VALUE; }

/// Counts the opens of one AVFormatContext and forwards the first to FFmpeg's own `io_open`.
typedef struct {
    int opens;
    int (*io_open)(struct AVFormatContext *, AVIOContext **, const char *, int, AVDictionary **);
} docpreview_open_guard;

static int docpreview_open_first_only(struct AVFormatContext *context, AVIOContext **pb, const char *url, int flags,
                                      AVDictionary **options) {
    docpreview_open_guard *guard = context->opaque;
    if (guard->opens++ > 0) return AVERROR(EPERM);
    return guard->io_open(context, pb, url, flags, options);
}

/// The file itself is the only thing a demuxer may open: every later open (an HLS or DASH playlist's
/// segments, a concat script's files, QuickTime data references, anything the format whitelist
/// missed) fails with EPERM. `guard` must outlive `context`.
static inline void docpreview_open_first_only_install(AVFormatContext *context, docpreview_open_guard *guard) {
    guard->opens = 0;
    guard->io_open = context->io_open;
    context->opaque = guard;
    context->io_open = docpreview_open_first_only;
}

#endif
