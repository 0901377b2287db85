#ifndef DOCPREVIEW_CFFMPEG_SHIM_H
#define DOCPREVIEW_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>

#include <libavutil/macros.h>
#include <native_loader.h>

/// FFmpeg is opened on first use (see native_loader.h); the sonames follow the headers' major versions.
#define DOCPREVIEW_AVFORMAT "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)
#define DOCPREVIEW_AVCODEC "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR)
#define DOCPREVIEW_SWSCALE "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR)
#define DOCPREVIEW_AVUTIL "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR)

DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_alloc_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_open_input)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_find_stream_info)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_close_input)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, avformat_version)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_read_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVFORMAT, av_stream_get_side_data)

DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_find_decoder)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_alloc_context3)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_parameters_to_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_open2)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_send_packet)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_receive_frame)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_free_context)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_version)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, avcodec_get_name)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_alloc)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_AVCODEC, av_packet_get_side_data)

DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_getCachedContext)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_scale)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, sws_freeContext)
DOCPREVIEW_LAZY(DOCPREVIEW_SWSCALE, swscale_version)

DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_alloc)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_frame_free)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_strerror)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_log_set_level)
DOCPREVIEW_LAZY(DOCPREVIEW_AVUTIL, av_display_rotation_get)

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

#endif
