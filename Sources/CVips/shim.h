#ifndef PHOTOSYNC_CVIPS_SHIM_H
#define PHOTOSYNC_CVIPS_SHIM_H
// The system libvips (Debian: libvips-dev). Swift code reaches it only through CImagingGlue: most of its
// API is C-variadic, which Swift cannot call.
#include <vips/vips.h>
#endif
