#ifndef PHOTOSYNC_CAVCODEC_SHIM_H
#define PHOTOSYNC_CAVCODEC_SHIM_H
// FFmpeg's libavformat, libavcodec, libswscale and libavutil (Debian: libavformat-dev, libavcodec-dev,
// libswscale-dev), for video poster frames. Reached only through CImagingGlue.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#endif
