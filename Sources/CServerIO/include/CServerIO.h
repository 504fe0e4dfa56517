#ifndef CSERVERIO_H
#define CSERVERIO_H

#include <sys/types.h>

/// Reads from a file only what is in the page cache already: preadv2(2) with RWF_NOWAIT. Returns the bytes
/// read (possibly fewer than asked), or -1 with errno EAGAIN when the first byte would need the disk, or
/// EOPNOTSUPP where the file system or kernel can't tell.
ssize_t photosync_pread_cached(int fd, void *buffer, size_t count, off_t offset);

#endif
