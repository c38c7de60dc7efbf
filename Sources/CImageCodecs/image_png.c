// PNG through libpng16's simplified API (png.h, "Simplified API"; png_image is version 1), declared
// here: its layout is part of libpng16's stable ABI. Loaded with dlopen at first use.
#include "image_codecs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *opaque;
    uint32_t version, width, height, format, flags, colormap_entries, warning_or_error;
    char message[64];
} fh_png_image;

#define FH_PNG_IMAGE_VERSION 1
#define FH_PNG_FORMAT_RGB 2

static struct {
    int (*begin_read_from_memory)(fh_png_image *, const void *, size_t);
    int (*finish_read)(fh_png_image *, const void *background, void *buffer, int32_t row_stride, void *colormap);
    void (*image_free)(fh_png_image *);
    // Only the encoder needs it: a library without it still decodes.
    int (*write_to_memory)(fh_png_image *, void *, size_t *, int, const void *, int32_t, const void *);
} png;
static int png_loaded;
static pthread_once_t png_once = PTHREAD_ONCE_INIT;

static void load_png(void) {
    static const char *const names[] = {"libpng16.so.16", "libpng16.so", NULL};
    void *handle = fhimg_open_first(names);
    if (!handle) return;
    *(void **)&png.begin_read_from_memory = dlsym(handle, "png_image_begin_read_from_memory");
    *(void **)&png.finish_read = dlsym(handle, "png_image_finish_read");
    *(void **)&png.image_free = dlsym(handle, "png_image_free");
    *(void **)&png.write_to_memory = dlsym(handle, "png_image_write_to_memory");
    png_loaded = png.begin_read_from_memory && png.finish_read && png.image_free;
}

void fhimg_load_png(void) { pthread_once(&png_once, load_png); }

static int png_header(const uint8_t *bytes, size_t count, fh_png_image *image, char *reason, size_t size) {
    pthread_once(&png_once, load_png);
    if (!png_loaded) return fhimg_say(reason, size, FHIMG_NO_LIBRARY, "PNG needs libpng16.so.16 (apt install libpng16-16)");
    memset(image, 0, sizeof *image);
    image->version = FH_PNG_IMAGE_VERSION;
    if (!png.begin_read_from_memory(image, bytes, count)) {
        return fhimg_say(reason, size, FHIMG_CORRUPT, "damaged PNG: %s", image->message);
    }
    int problem = fhimg_declared_size_problem(image->width, image->height, reason, size);
    if (problem) png.image_free(image);
    return problem;
}

int fhimg_png_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason, size_t size) {
    fh_png_image image;
    int status = png_header(bytes, count, &image, reason, size);
    // The size is known even when it is too large.
    if (status == FHIMG_OK || status == FHIMG_TOO_LARGE) {
        if (count >= 24) {
            *width = (int32_t)((uint32_t)bytes[16] << 24 | (uint32_t)bytes[17] << 16 | bytes[18] << 8 | bytes[19]);
            *height = (int32_t)((uint32_t)bytes[20] << 24 | (uint32_t)bytes[21] << 16 | bytes[22] << 8 | bytes[23]);
        }
    }
    if (status == FHIMG_OK) png.image_free(&image);
    return status;
}

int fhimg_png_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h, fhimg_picture *out,
                        char *reason, size_t size) {
    fh_png_image image;
    int status = png_header(bytes, count, &image, reason, size);
    if (status) return status;
    image.format = FH_PNG_FORMAT_RGB;
    size_t stride = (size_t)image.width * 3;
    uint8_t *full = malloc(stride * image.height);
    if (!full) {
        png.image_free(&image);
        return fhimg_say(reason, size, FHIMG_NO_MEMORY, "no memory for a %ux%u PNG", image.width, image.height);
    }
    if (!png.finish_read(&image, NULL, full, (int32_t)stride, NULL)) {
        free(full);
        png.image_free(&image);
        return fhimg_say(reason, size, FHIMG_CORRUPT, "damaged or truncated PNG: %s", image.message);
    }
    int32_t w, h;
    fhimg_fitted((int32_t)image.width, (int32_t)image.height, max_w, max_h, &w, &h);
    status = fhimg_box_scaled(full, (int32_t)image.width, (int32_t)image.height, stride, w, h, out);
    free(full);
    png.image_free(&image);
    return status ? fhimg_say(reason, size, status, "no memory for the thumbnail") : FHIMG_OK;
}

int fhimg_encode_png(const uint8_t *rgb, int32_t width, int32_t height, uint8_t **out_bytes, size_t *out_count) {
    *out_bytes = NULL;
    *out_count = 0;
    pthread_once(&png_once, load_png);
    if (!png_loaded || !png.write_to_memory) return FHIMG_NO_LIBRARY;
    fh_png_image image;
    memset(&image, 0, sizeof image);
    image.version = FH_PNG_IMAGE_VERSION;
    image.width = (uint32_t)width;
    image.height = (uint32_t)height;
    image.format = FH_PNG_FORMAT_RGB;
    size_t size = 0;
    if (!png.write_to_memory(&image, NULL, &size, 0, rgb, width * 3, NULL)) return FHIMG_CORRUPT;
    uint8_t *bytes = malloc(size);
    if (!bytes) return FHIMG_NO_MEMORY;
    if (!png.write_to_memory(&image, bytes, &size, 0, rgb, width * 3, NULL)) {
        free(bytes);
        return FHIMG_CORRUPT;
    }
    *out_bytes = bytes;
    *out_count = size;
    return FHIMG_OK;
}
