#ifndef PHOTOSYNC_CHEIF_SHIM_H
#define PHOTOSYNC_CHEIF_SHIM_H
// The system libheif (Debian: libheif-dev), for the structure and metadata of HEIF and AVIF files.
#include <libheif/heif.h>
#endif
