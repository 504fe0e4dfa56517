#ifndef PHOTOSYNC_CIMAGINGGLUE_H
#define PHOTOSYNC_CIMAGINGGLUE_H
// Non-variadic glue over libvips and FFmpeg for PhotoImaging. Glue only: every pixel is decoded, resized,
// converted and encoded by the libraries; these functions pass options Swift cannot pass (C varargs) and
// hold the few callbacks (reads, progress, cancellation) that must be C functions.
//
// Ownership: every `ci_image *` returned is a new reference the caller releases with ci_image_release;
// a function taking an image never consumes the caller's reference. Every buffer returned is released
// with ci_free. A NULL image or a negative result means failure: ci_take_error gives the message.

#include <stddef.h>
#include <stdint.h>

/// A VipsImage, opaque to Swift.
typedef struct ci_image ci_image;
/// A VipsSource reading one open file through ci_watch (opaque to Swift).
typedef struct ci_source ci_source;

/// Shared between Swift and the C callbacks of one render: the cancellation flag (read by every file read
/// and every evaluation step) and progress reporting (the share of the file read so far).
typedef struct ci_watch {
    int cancelled;                                     // read/written atomically: ci_watch_cancel
    void (*progress)(void *context, double fraction);  // may be NULL; called from libvips' threads
    void *context;
    int fd;                                            // the file read; owned by the Swift side
    int64_t file_size;
    int64_t high_water;                                // furthest byte read, for progress
    int last_percent;
} ci_watch;

void ci_watch_cancel(ci_watch *watch);
int ci_watch_is_cancelled(ci_watch *watch);

/// Starts libvips once per process: operation cache off (file names are no content key), untrusted
/// loaders blocked (ImageMagick, PDF, SVG, Matlab, FITS…), `concurrency` worker threads per pipeline
/// (0: libvips' default). Returns 0, or -1 with an error.
int ci_initialize(int concurrency);

/// The last libvips error messages (malloc'd; ci_free), and clears them. Never NULL.
char *ci_take_error(void);
void ci_free(void *pointer);

/// A source reading `watch->fd` with pread from offset 0: reads fail once the watch is cancelled.
ci_source *ci_source_new(ci_watch *watch);
void ci_source_release(ci_source *source);

/// Facts from a file's header, read without decoding pixels.
typedef struct ci_header {
    int width;          // as stored (before orientation)
    int height;
    int bands;
    int orientation;    // EXIF 1–8 (1 when absent)
    int pages;
    int has_alpha;
    int has_icc;
    char loader[64];    // libvips' loader name, e.g. "jpegload_source"
} ci_header;

/// Reads the header. Returns 0, -2 when no loader knows the format, or -1 (unreadable header, cancelled).
int ci_header_read(ci_source *source, ci_header *header);

/// Parses EXIF data, a JPEG APP1 payload starting with "Exif\0\0": the orientation of IFD0 (1 when absent
/// or invalid) and a copy of IFD1's thumbnail (JPEG bytes, ci_free; NULL when there is none). Returns 0, or
/// -1 when the data isn't EXIF. No pixel is decoded.
int ci_exif_parse(const void *data, size_t length, int *orientation, void **thumbnail, size_t *thumbnail_length);

/// The primary image's embedded thumbnail in a HEIF/AVIF file, or NULL (none, or not HEIF).
ci_image *ci_heif_thumbnail(ci_source *source);

/// Shrink-on-load thumbnail of a file to exactly `width`×`height` (aspect not kept: the caller computes
/// sizes that keep it), orientation applied unless `no_rotate`; with `to_srgb` an embedded ICC profile is
/// imported and the pixels exported to sRGB. `fail_on` is a VipsFailOn.
ci_image *ci_thumbnail(ci_source *source, int width, int height, int no_rotate, int to_srgb, int fail_on);
/// The same from encoded bytes in memory (an embedded thumbnail), never rotated.
ci_image *ci_thumbnail_buffer(const void *data, size_t length, int width, int height, int to_srgb);
/// An image over encoded bytes in memory, decoded lazily; the bytes must outlive the image.
ci_image *ci_load_buffer(const void *data, size_t length);
/// The same from an image in memory (a video frame).
ci_image *ci_thumbnail_image(ci_image *image, int width, int height);

/// An image over RGBA8 pixels (copied).
ci_image *ci_image_from_rgba(const void *pixels, int width, int height);
ci_image *ci_extract(ci_image *image, int left, int top, int width, int height);
/// Applies an EXIF orientation (1–8) to pixels that carry none.
ci_image *ci_orient(ci_image *image, int orientation);
/// Turns any image into 8-bit sRGB: 3 bands (`alpha` 0: alpha flattened on white), 3 or 4 bands as found
/// (`alpha` 1), or always 4 (`alpha` 2: an opaque alpha band added when there is none).
ci_image *ci_to_srgb8(ci_image *image, int alpha);

enum { CI_FORMAT_JPEG = 0, CI_FORMAT_WEBP = 1, CI_FORMAT_PNG = 2, CI_FORMAT_AVIF = 3 };
/// Encodes without metadata. Returns 0 with a buffer (ci_free), or -1.
int ci_save(ci_image *image, int format, int quality, ci_watch *watch, void **data, size_t *length);
/// Computes the pixels into a packed buffer (ci_free), or NULL.
void *ci_pixels(ci_image *image, ci_watch *watch, size_t *length);

int ci_image_width(ci_image *image);
int ci_image_height(ci_image *image);
int ci_image_bands(ci_image *image);
void ci_image_release(ci_image *image);

// Video (FFmpeg).

/// The first decodable frame of a video's default video stream as RGBA8 (malloc'd; ci_free), its size,
/// and the rotation of the stream's display matrix in degrees (0, 90, 180, 270: clockwise to apply).
/// Refuses frames over `max_pixels`. Reads stop when the watch is cancelled. Returns 0, or -1 with
/// `error` filled.
int ci_video_poster(const char *path, ci_watch *watch, int64_t max_pixels, void **pixels, int *width,
                    int *height, int *rotation, char *error, size_t error_length);

#endif
