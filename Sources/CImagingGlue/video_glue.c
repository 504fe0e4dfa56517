// Glue over FFmpeg: the first frame of a video as RGBA8. See CImagingGlue.h.
#include "CImagingGlue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>

/// Packets read before giving up on finding a frame: a damaged file can't make the search endless.
#define MAX_PACKETS 4096

void ci_video_initialize(void) { av_log_set_level(AV_LOG_QUIET); }

static int interrupted(void *user) { return ci_watch_is_cancelled(user); }

static void describe(int code, const char *what, char *error, size_t error_length) {
    char reason[128];
    av_strerror(code, reason, sizeof reason);
    snprintf(error, error_length, "%s: %s", what, reason);
}

static int rotation_of(AVStream *stream) {
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix == NULL) return 0;
    double degrees = -av_display_rotation_get((const int32_t *)matrix);  // clockwise
    if (isnan(degrees)) return 0;
    int quarter = (int)lround(degrees / 90.0);
    return ((quarter % 4) + 4) % 4 * 90;
}

/// Converts a decoded frame to packed RGBA.
static void *to_rgba(AVFrame *frame, char *error, size_t error_length) {
    struct SwsContext *scaler =
        sws_getContext(frame->width, frame->height, frame->format, frame->width, frame->height,
                       AV_PIX_FMT_RGBA, SWS_BILINEAR, NULL, NULL, NULL);
    if (scaler == NULL) {
        snprintf(error, error_length, "unsupported pixel format");
        return NULL;
    }
    uint8_t *pixels = malloc((size_t)frame->width * frame->height * 4);
    if (pixels != NULL) {
        uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
        int strides[4] = {frame->width * 4, 0, 0, 0};
        sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes,
                  strides);
    }
    sws_freeContext(scaler);
    return pixels;
}

/// Reads packets of `stream` until a frame decodes. Returns 0 with `frame` filled, or an AVERROR.
static int decode_first(AVFormatContext *format, AVCodecContext *codec, int stream, AVFrame *frame) {
    AVPacket *packet = av_packet_alloc();
    if (packet == NULL) return AVERROR(ENOMEM);
    int result = AVERROR_INVALIDDATA;
    int flushing = 0;
    for (int count = 0; count < MAX_PACKETS; count++) {
        if (!flushing) {
            int read = av_read_frame(format, packet);
            if (read == AVERROR_EOF) {
                flushing = 1;
                avcodec_send_packet(codec, NULL);
            } else if (read < 0) {
                result = read;
                break;
            } else {
                if (packet->stream_index == stream) avcodec_send_packet(codec, packet);
                av_packet_unref(packet);
            }
        }
        int received = avcodec_receive_frame(codec, frame);
        if (received == 0) {
            result = 0;
            break;
        }
        if (received != AVERROR(EAGAIN)) {
            result = received;
            break;
        }
    }
    av_packet_free(&packet);
    return result;
}

int ci_video_poster(const char *path, ci_watch *watch, int64_t max_pixels, void **pixels, int *width,
                    int *height, int *rotation, char *error, size_t error_length) {
    *pixels = NULL;
    AVFormatContext *format = avformat_alloc_context();
    if (format == NULL) return snprintf(error, error_length, "out of memory"), -1;
    format->interrupt_callback.callback = interrupted;
    format->interrupt_callback.opaque = watch;
    int code = avformat_open_input(&format, path, NULL, NULL);  // frees the context on failure
    if (code < 0) return describe(code, "unreadable video", error, error_length), -1;
    AVCodecContext *codec = NULL;
    AVFrame *frame = NULL;
    int result = -1;
    const AVCodec *decoder = NULL;
    if ((code = avformat_find_stream_info(format, NULL)) < 0) {
        describe(code, "unreadable video", error, error_length);
        goto done;
    }
    int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (stream < 0 || decoder == NULL) {
        snprintf(error, error_length, "no decodable video stream");
        goto done;
    }
    AVCodecParameters *parameters = format->streams[stream]->codecpar;
    if (parameters->width <= 0 || parameters->height <= 0 ||
        (int64_t)parameters->width * parameters->height > max_pixels) {
        snprintf(error, error_length, "frame size %dx%d refused", parameters->width, parameters->height);
        goto done;
    }
    codec = avcodec_alloc_context3(decoder);
    frame = av_frame_alloc();
    if (codec == NULL || frame == NULL || avcodec_parameters_to_context(codec, parameters) < 0) {
        snprintf(error, error_length, "out of memory");
        goto done;
    }
    codec->thread_count = 1;
    if ((code = avcodec_open2(codec, decoder, NULL)) < 0) {
        describe(code, "video decoder", error, error_length);
        goto done;
    }
    if ((code = decode_first(format, codec, stream, frame)) < 0) {
        describe(code, ci_watch_is_cancelled(watch) ? "cancelled" : "no frame decoded", error, error_length);
        goto done;
    }
    if ((int64_t)frame->width * frame->height > max_pixels || frame->width <= 0 || frame->height <= 0) {
        snprintf(error, error_length, "frame size %dx%d refused", frame->width, frame->height);
        goto done;
    }
    *pixels = to_rgba(frame, error, error_length);
    if (*pixels == NULL) goto done;
    *width = frame->width;
    *height = frame->height;
    *rotation = rotation_of(format->streams[stream]);
    result = 0;
done:
    av_frame_free(&frame);
    avcodec_free_context(&codec);
    avformat_close_input(&format);
    return result;
}
