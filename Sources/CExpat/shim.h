#ifndef PHOTOSYNC_CEXPAT_SHIM_H
#define PHOTOSYNC_CEXPAT_SHIM_H
// The system Expat XML parser (Debian: libexpat1-dev), for XMP packets.
#include <expat.h>
#endif
