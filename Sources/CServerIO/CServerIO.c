#define _GNU_SOURCE
#include <sys/uio.h>
#include "CServerIO.h"

ssize_t photosync_pread_cached(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    return preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
}
