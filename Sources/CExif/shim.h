#ifndef PHOTOSYNC_CEXIF_SHIM_H
#define PHOTOSYNC_CEXIF_SHIM_H
// The system libexif (Debian: libexif-dev).
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-utils.h>
#endif
