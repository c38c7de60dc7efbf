/*
 * image_codecs_internal.h - what the codec files share: status messages, size checks, scaling and
 * library loading. Not part of the module's interface (it is outside include/); every name is
 * hidden from the linked image.
 */
#pragma once

#include "image_codecs.h"

#define FHIMG_INTERNAL __attribute__((visibility("hidden")))

#if __has_include(<jpeglib.h>)
#define FHIMG_HAS_JPEG_HEADERS 1
#endif

/* Writes the formatted line into reason (when there is room) and returns status. */
FHIMG_INTERNAL int fhimg_say(char *reason, size_t size, int status, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* FHIMG_OK when width x height is a size this host decodes; else FHIMG_CORRUPT or
 * FHIMG_TOO_LARGE, with the reason. */
FHIMG_INTERNAL int fhimg_declared_size_problem(long width, long height, char *reason, size_t size);

/* Each codec's library, loaded once (the first use loads it otherwise). */
FHIMG_INTERNAL void fhimg_load_png(void);
FHIMG_INTERNAL void fhimg_load_jpeg(void);
FHIMG_INTERNAL void fhimg_load_curl(void);

/* Fits width x height within max_width x max_height, keeping the ratio, never enlarging. */
FHIMG_INTERNAL void fhimg_fitted(int32_t width, int32_t height, int32_t max_width, int32_t max_height,
                                 int32_t *out_w, int32_t *out_h);

/* Box-filters the RGB source down to target_w x target_h into *out: FHIMG_OK or FHIMG_NO_MEMORY. */
FHIMG_INTERNAL int fhimg_box_scaled(const uint8_t *source, int32_t width, int32_t height, size_t stride,
                                    int32_t target_w, int32_t target_h, fhimg_picture *out);

/* The first of the NULL-terminated library names that dlopen loads, or NULL. */
FHIMG_INTERNAL void *fhimg_open_first(const char *const *names);

/* PNG (image_png.c). The image's declared size from its header, or a status and reason. */
FHIMG_INTERNAL int fhimg_png_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height,
                                  char *reason, size_t size);
FHIMG_INTERNAL int fhimg_png_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h,
                                       fhimg_picture *out, char *reason, size_t size);

/* JPEG (image_jpeg.c): without <jpeglib.h> at build time both report how to get it. */
FHIMG_INTERNAL int fhimg_jpeg_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height,
                                   char *reason, size_t size);
FHIMG_INTERNAL int fhimg_jpeg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h,
                                        fhimg_picture *out, char *reason, size_t size);
