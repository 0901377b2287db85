#ifndef DOCPREVIEW_CFFMPEG_SHIM_H
#define DOCPREVIEW_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>

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
