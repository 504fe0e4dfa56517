// Glue over libvips: see CImagingGlue.h. No pixel is touched here.
#include "CImagingGlue.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vips/vips.h>
#include <libexif/exif-data.h>

#define IMAGE(x) ((VipsImage *)(x))

void ci_watch_cancel(ci_watch *watch) { __atomic_store_n(&watch->cancelled, 1, __ATOMIC_SEQ_CST); }

int ci_watch_is_cancelled(ci_watch *watch) {
    return watch != NULL && __atomic_load_n(&watch->cancelled, __ATOMIC_SEQ_CST) != 0;
}

void ci_video_initialize(void);

/// libvips' warnings go to stderr by default; a damaged file's problems reach callers as errors instead.
static void drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user) {
    (void)domain, (void)level, (void)message, (void)user;
}

int ci_initialize(int concurrency) {
    if (VIPS_INIT("photosync")) return -1;
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, drop_warning, NULL);
    ci_video_initialize();
    // The operation cache keys on file names and arguments: an edited file would be served from it.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Loaders libvips marks untrusted (ImageMagick, PDF, Matlab, FITS, …) never see a library's files.
    vips_block_untrusted_set(TRUE);
    if (concurrency > 0) vips_concurrency_set(concurrency);
    return 0;
}

char *ci_take_error(void) {
    char *message = vips_error_buffer_copy();
    if (message == NULL) return strdup("");
    char *copy = strdup(message);
    g_free(message);
    return copy;
}

void ci_free(void *pointer) {
    // Buffers from libvips are g_malloc'd; on Linux glib's allocator is malloc.
    g_free(pointer);
}

// MARK: Sources

struct ci_source;  // a VipsSourceCustom carrying a position of its own

typedef struct {
    ci_watch *watch;
    int64_t position;
} source_state;

static void report_progress(ci_watch *watch, int64_t end) {
    if (watch->progress == NULL || watch->file_size <= 0) return;
    int64_t previous = __atomic_load_n(&watch->high_water, __ATOMIC_RELAXED);
    if (end <= previous) return;
    __atomic_store_n(&watch->high_water, end, __ATOMIC_RELAXED);
    int percent = (int)(end * 100 / watch->file_size);
    if (percent > watch->last_percent) {
        watch->last_percent = percent;
        watch->progress(watch->context, (double)end / (double)watch->file_size);
    }
}

static gint64 source_read(VipsSourceCustom *custom, void *buffer, gint64 length, void *user) {
    (void)custom;
    source_state *state = user;
    if (ci_watch_is_cancelled(state->watch)) {
        vips_error("photosync", "cancelled");
        return -1;
    }
    for (;;) {
        ssize_t count = pread(state->watch->fd, buffer, (size_t)length, state->position);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) {
            vips_error("photosync", "read failed: %s", strerror(errno));
            return -1;
        }
        state->position += count;
        report_progress(state->watch, state->position);
        return count;
    }
}

static gint64 source_seek(VipsSourceCustom *custom, gint64 offset, int whence, void *user) {
    (void)custom;
    source_state *state = user;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? state->position : state->watch->file_size;
    int64_t next = base + offset;
    if (next < 0) return -1;
    state->position = next;
    return next;
}

ci_source *ci_source_new(ci_watch *watch) {
    VipsSourceCustom *custom = vips_source_custom_new();
    if (custom == NULL) return NULL;
    source_state *state = g_new0(source_state, 1);
    state->watch = watch;
    g_signal_connect(custom, "read", G_CALLBACK(source_read), state);
    g_signal_connect(custom, "seek", G_CALLBACK(source_seek), state);
    // The state lives as long as the source: freed when its last reference goes.
    g_object_set_data_full(G_OBJECT(custom), "photosync-state", state, g_free);
    return (ci_source *)custom;
}

void ci_source_release(ci_source *source) {
    if (source != NULL) g_object_unref(source);
}

// MARK: Headers and embedded thumbnails

int ci_header_read(ci_source *source, ci_header *header) {
    memset(header, 0, sizeof *header);
    const char *loader = vips_foreign_find_load_source(VIPS_SOURCE(source));
    if (loader == NULL) return ci_watch_is_cancelled(((source_state *)g_object_get_data(G_OBJECT(source), "photosync-state"))->watch) ? -1 : -2;
    VipsImage *image = vips_image_new_from_source(VIPS_SOURCE(source), "", "access",
                                                  VIPS_ACCESS_SEQUENTIAL, NULL);
    if (image == NULL) return -1;
    header->width = vips_image_get_width(image);
    header->height = vips_image_get_height(image);
    header->bands = vips_image_get_bands(image);
    header->orientation = vips_image_get_orientation(image);
    header->pages = vips_image_get_n_pages(image);
    header->has_alpha = vips_image_hasalpha(image);
    header->has_icc = vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
    strncpy(header->loader, loader, sizeof header->loader - 1);
    g_object_unref(image);
    return 0;
}

int ci_exif_parse(const void *data, size_t length, int *orientation, void **thumbnail, size_t *thumbnail_length) {
    *orientation = 1;
    *thumbnail = NULL;
    *thumbnail_length = 0;
    if (length < 6 || memcmp(data, "Exif\0\0", 6) != 0 || length > UINT_MAX) return -1;
    ExifData *exif = exif_data_new();
    if (exif == NULL) return -1;
    // Read as written: no tags added or "fixed", maker notes left alone.
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_set_option(exif, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
    exif_data_load_data(exif, data, (unsigned int)length);
    ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (entry != NULL && entry->format == EXIF_FORMAT_SHORT && entry->components >= 1 && entry->size >= 2) {
        int value = exif_get_short(entry->data, exif_data_get_byte_order(exif));
        if (value >= 1 && value <= 8) *orientation = value;
    }
    if (exif->data != NULL && exif->size > 0) {
        *thumbnail = g_malloc(exif->size);
        memcpy(*thumbnail, exif->data, exif->size);
        *thumbnail_length = exif->size;
    }
    exif_data_unref(exif);
    return 0;
}

ci_image *ci_heif_thumbnail(ci_source *source) {
    VipsImage *out = NULL;
    if (vips_heifload_source(VIPS_SOURCE(source), &out, "thumbnail", TRUE, NULL)) {
        vips_error_clear();
        return NULL;
    }
    return (ci_image *)out;
}

// MARK: Pipelines

ci_image *ci_thumbnail(ci_source *source, int width, int height, int no_rotate, int to_srgb, int fail_on) {
    VipsImage *out = NULL;
    // thumbnail_source hands its own fail_on to no loader in 8.14: the loader's options carry it.
    char options[64];
    snprintf(options, sizeof options, "fail_on=%s", vips_enum_nick(VIPS_TYPE_FAIL_ON, fail_on));
    int failed = to_srgb
        ? vips_thumbnail_source(VIPS_SOURCE(source), &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", no_rotate, "export_profile", "srgb", "option_string", options, NULL)
        : vips_thumbnail_source(VIPS_SOURCE(source), &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", no_rotate, "option_string", options, NULL);
    return failed ? NULL : (ci_image *)out;
}

ci_image *ci_thumbnail_buffer(const void *data, size_t length, int width, int height, int to_srgb) {
    VipsImage *out = NULL;
    int failed = to_srgb
        ? vips_thumbnail_buffer((void *)data, length, &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", TRUE, "export_profile", "srgb", NULL)
        : vips_thumbnail_buffer((void *)data, length, &out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", TRUE, NULL);
    return failed ? NULL : (ci_image *)out;
}

ci_image *ci_load_buffer(const void *data, size_t length) {
    return (ci_image *)vips_image_new_from_buffer(data, length, "", NULL);
}

ci_image *ci_thumbnail_image(ci_image *image, int width, int height) {
    VipsImage *out = NULL;
    if (vips_thumbnail_image(IMAGE(image), &out, width, "height", height, "size", VIPS_SIZE_FORCE, NULL))
        return NULL;
    return (ci_image *)out;
}

ci_image *ci_image_from_rgba(const void *pixels, int width, int height) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, (size_t)width * height * 4, width, height, 4,
                                                       VIPS_FORMAT_UCHAR);
    if (image != NULL) image->Type = VIPS_INTERPRETATION_sRGB;
    return (ci_image *)image;
}

ci_image *ci_extract(ci_image *image, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    if (vips_extract_area(IMAGE(image), &out, left, top, width, height, NULL)) return NULL;
    return (ci_image *)out;
}

ci_image *ci_orient(ci_image *image, int orientation) {
    // EXIF orientation n: the stored pixels, turned by the rotation and then mirrored, are upright.
    static const VipsAngle angles[9] = {VIPS_ANGLE_D0, VIPS_ANGLE_D0, VIPS_ANGLE_D0, VIPS_ANGLE_D180,
                                        VIPS_ANGLE_D180, VIPS_ANGLE_D90, VIPS_ANGLE_D90, VIPS_ANGLE_D270,
                                        VIPS_ANGLE_D270};
    static const int flips[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
    if (orientation < 1 || orientation > 8) orientation = 1;
    VipsImage *rotated = NULL;
    if (vips_rot(IMAGE(image), &rotated, angles[orientation], NULL)) return NULL;
    if (!flips[orientation]) return (ci_image *)rotated;
    VipsImage *flipped = NULL;
    int failed = vips_flip(rotated, &flipped, VIPS_DIRECTION_HORIZONTAL, NULL);
    g_object_unref(rotated);
    return failed ? NULL : (ci_image *)flipped;
}

ci_image *ci_to_srgb8(ci_image *image, int alpha) {
    VipsImage *in = IMAGE(image);
    VipsImage *current = NULL;
    // Colourspace conversion keeps an alpha band and turns 16-bit and float images into 8-bit sRGB.
    if (vips_colourspace(in, &current, VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    if (vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        VipsImage *cast = NULL;
        int failed = vips_cast(current, &cast, VIPS_FORMAT_UCHAR, NULL);
        g_object_unref(current);
        if (failed) return NULL;
        current = cast;
    }
    int has_alpha = vips_image_get_bands(current) == 4 || vips_image_get_bands(current) == 2;
    VipsImage *next = NULL;
    if (has_alpha && alpha == 0) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int failed = vips_flatten(current, &next, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(current);
        if (failed) return NULL;
        current = next;
    } else if (!has_alpha && alpha == 2) {
        int failed = vips_bandjoin_const1(current, &next, 255.0, NULL);
        g_object_unref(current);
        if (failed) return NULL;
        current = next;
    }
    return (ci_image *)current;
}

// MARK: Output

static void on_eval(VipsImage *image, VipsProgress *progress, void *user) {
    (void)progress;
    if (ci_watch_is_cancelled(user)) vips_image_set_kill(image, TRUE);
}

/// Evaluation checks the watch: a cancel stops libvips between tiles.
static void watch_evaluation(VipsImage *image, ci_watch *watch) {
    if (watch == NULL) return;
    vips_image_set_progress(image, TRUE);
    g_signal_connect(image, "eval", G_CALLBACK(on_eval), watch);
}

int ci_save(ci_image *image, int format, int quality, ci_watch *watch, void **data, size_t *length) {
    // A copy, so that the signal handler connected here dies with this call.
    VipsImage *target = NULL;
    if (vips_copy(IMAGE(image), &target, NULL)) return -1;
    watch_evaluation(target, watch);
    int failed;
    switch (format) {
    case CI_FORMAT_WEBP:
        failed = vips_webpsave_buffer(target, data, length, "Q", quality, "strip", TRUE, NULL);
        break;
    case CI_FORMAT_PNG:
        failed = vips_pngsave_buffer(target, data, length, "compression", 6, "strip", TRUE, NULL);
        break;
    case CI_FORMAT_AVIF:
        failed = vips_heifsave_buffer(target, data, length, "Q", quality, "compression",
                                      VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", 2, "strip", TRUE, NULL);
        break;
    default:
        failed = vips_jpegsave_buffer(target, data, length, "Q", quality, "strip", TRUE, NULL);
        break;
    }
    g_object_unref(target);
    return failed ? -1 : 0;
}

void *ci_pixels(ci_image *image, ci_watch *watch, size_t *length) {
    VipsImage *target = NULL;
    if (vips_copy(IMAGE(image), &target, NULL)) return NULL;
    watch_evaluation(target, watch);
    void *pixels = vips_image_write_to_memory(target, length);
    g_object_unref(target);
    return pixels;
}

int ci_image_width(ci_image *image) { return vips_image_get_width(IMAGE(image)); }
int ci_image_height(ci_image *image) { return vips_image_get_height(IMAGE(image)); }
int ci_image_bands(ci_image *image) { return vips_image_get_bands(IMAGE(image)); }

void ci_image_release(ci_image *image) {
    if (image != NULL) g_object_unref(image);
}
