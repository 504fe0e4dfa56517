#ifndef PHOTOSYNC_CXXHASH_SHIM_H
#define PHOTOSYNC_CXXHASH_SHIM_H
// The system libxxhash (Debian: libxxhash-dev). Only the stable, exported API is used.
#include <xxhash.h>
#endif
