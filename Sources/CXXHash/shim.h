#ifndef PHOTOSYNC_CXXHASH_SHIM_H
#define PHOTOSYNC_CXXHASH_SHIM_H
// The system libxxhash (Debian: libxxhash-dev). Only its exported API is used.
#include <stddef.h>
#include <xxhash.h>

// XXH3's speed depends on the vector unit it uses. The generic XXH3_128bits_update is compiled for the
// distribution's baseline CPU (SSE2 on x86-64), about 2.5 times slower than AVX2 on bulk input. A
// libxxhash built with its x86 dispatcher (Debian's is, like the xxhsum it ships) also exports
// XXH3_128bits_update_dispatch (declared in <xxh_x86dispatch.h>), which picks SSE2, AVX2 or AVX-512 once,
// by cpuid, and computes the same hash. It is referenced weakly here, so that a libxxhash built without
// the dispatcher still links, and the generic function is used instead.
#if defined(__x86_64__) && defined(__ELF__)
extern XXH_errorcode XXH3_128bits_update_dispatch(XXH3_state_t *state, const void *input, size_t length)
    __attribute__((weak));
#endif

/// Adds `length` bytes at `input` to an XXH3-128 streaming state, with the fastest vector unit the
/// library offers for this CPU.
static inline XXH_errorcode photosync_XXH3_128bits_update(XXH3_state_t *state, const void *input, size_t length) {
#if defined(__x86_64__) && defined(__ELF__)
    if (XXH3_128bits_update_dispatch != NULL) {
        return XXH3_128bits_update_dispatch(state, input, length);
    }
#endif
    return XXH3_128bits_update(state, input, length);
}

#endif
