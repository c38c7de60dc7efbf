// The codecs' shared parts and the entry points that sniff the bytes and hand them to PNG
// (image_png.c) or JPEG (image_jpeg.c); fetching is in image_fetch.c. Each library is loaded with
// dlopen at first use.
#include "image_codecs_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fhimg_say(char *reason, size_t size, int status, const char *format, ...) {
    if (reason && size) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(reason, size, format, arguments);
        va_end(arguments);
    }
    return status;
}

void fhimg_free(fhimg_picture *picture) {
    if (!picture) return;
    free(picture->pixels);
    picture->pixels = NULL;
    picture->width = picture->height = 0;
}

int fhimg_declared_size_problem(long width, long height, char *reason, size_t size) {
    if (width <= 0 || height <= 0) return fhimg_say(reason, size, FHIMG_CORRUPT, "the image declares %ldx%ld pixels", width, height);
    if (width > FHIMG_MAX_SIDE || height > FHIMG_MAX_SIDE || width * height > FHIMG_MAX_PIXELS) {
        return fhimg_say(reason, size, FHIMG_TOO_LARGE, "%ldx%ld pixels is more than this host decodes (at most %ld pixels)",
                   width, height, (long)FHIMG_MAX_PIXELS);
    }
    return FHIMG_OK;
}

void fhimg_fitted(int32_t width, int32_t height, int32_t max_width, int32_t max_height, int32_t *out_w,
                  int32_t *out_h) {
    double scale = 1.0;
    if (width > max_width) scale = (double)max_width / width;
    if (height * scale > max_height) scale = (double)max_height / height;
    int32_t w = (int32_t)(width * scale + 0.5), h = (int32_t)(height * scale + 0.5);
    *out_w = w < 1 ? 1 : w;
    *out_h = h < 1 ? 1 : h;
}

/* Each target pixel averages the source pixels its area covers. */
int fhimg_box_scaled(const uint8_t *source, int32_t width, int32_t height, size_t stride, int32_t target_w,
                     int32_t target_h, fhimg_picture *out) {
    uint8_t *pixels = malloc((size_t)target_w * target_h * 3);
    if (!pixels) return FHIMG_NO_MEMORY;
    for (int32_t y = 0; y < target_h; y++) {
        int32_t y0 = (int32_t)((int64_t)y * height / target_h), y1 = (int32_t)((int64_t)(y + 1) * height / target_h);
        if (y1 <= y0) y1 = y0 + 1;
        for (int32_t x = 0; x < target_w; x++) {
            int32_t x0 = (int32_t)((int64_t)x * width / target_w), x1 = (int32_t)((int64_t)(x + 1) * width / target_w);
            if (x1 <= x0) x1 = x0 + 1;
            uint32_t sum[3] = {0, 0, 0}, n = 0;
            for (int32_t sy = y0; sy < y1; sy++) {
                const uint8_t *row = source + (size_t)sy * stride + (size_t)x0 * 3;
                for (int32_t sx = x0; sx < x1; sx++, row += 3) {
                    sum[0] += row[0];
                    sum[1] += row[1];
                    sum[2] += row[2];
                    n++;
                }
            }
            uint8_t *target = pixels + ((size_t)y * target_w + x) * 3;
            target[0] = (uint8_t)(sum[0] / n);
            target[1] = (uint8_t)(sum[1] / n);
            target[2] = (uint8_t)(sum[2] / n);
        }
    }
    out->width = target_w;
    out->height = target_h;
    out->pixels = pixels;
    return FHIMG_OK;
}

/* ---- library loading ---------------------------------------------------------------------- */

void *fhimg_open_first(const char *const *names) {
    for (; *names; names++) {
        void *handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
    }
    return NULL;
}

/* ---- by kind --------------------------------------------------------------------------------- */

typedef enum { KIND_UNKNOWN, KIND_JPEG, KIND_PNG, KIND_GIF, KIND_WEBP, KIND_TEXT } kind;

static kind sniff(const uint8_t *bytes, size_t count) {
    if (count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return KIND_JPEG;
    if (count >= 8 && memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0) return KIND_PNG;
    if (count >= 4 && memcmp(bytes, "GIF8", 4) == 0) return KIND_GIF;
    if (count >= 12 && memcmp(bytes, "RIFF", 4) == 0 && memcmp(bytes + 8, "WEBP", 4) == 0) return KIND_WEBP;
    size_t i = 0;
    while (i < count && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) i++;
    if (i < count && (bytes[i] == '<' || bytes[i] == '{' || bytes[i] == '[')) return KIND_TEXT;
    return KIND_UNKNOWN;
}

static int not_decoded(kind found, size_t count, char *reason, size_t size) {
    switch (found) {
    case KIND_GIF: return fhimg_say(reason, size, FHIMG_UNSUPPORTED, "a GIF (only JPEG and PNG are drawn)");
    case KIND_WEBP: return fhimg_say(reason, size, FHIMG_UNSUPPORTED, "a WebP image (only JPEG and PNG are drawn)");
    case KIND_TEXT: return fhimg_say(reason, size, FHIMG_UNSUPPORTED, "text, not an image");
    default:
        if (count == 0) return fhimg_say(reason, size, FHIMG_CORRUPT, "no bytes");
        return fhimg_say(reason, size, FHIMG_UNSUPPORTED, "not a JPEG or PNG image");
    }
}

int fhimg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_width, int32_t max_height, fhimg_picture *out,
                    char *reason, size_t reason_size) {
    memset(out, 0, sizeof *out);
    if (reason && reason_size) reason[0] = '\0';
    if (max_width < 1 || max_height < 1) return fhimg_say(reason, reason_size, FHIMG_TOO_LARGE, "no room for a thumbnail");
    kind found = sniff(bytes, count);
    switch (found) {
    case KIND_PNG: return fhimg_png_thumbnail(bytes, count, max_width, max_height, out, reason, reason_size);
    case KIND_JPEG: return fhimg_jpeg_thumbnail(bytes, count, max_width, max_height, out, reason, reason_size);
    default: return not_decoded(found, count, reason, reason_size);
    }
}

int fhimg_header_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason,
                      size_t reason_size) {
    *width = *height = 0;
    kind found = sniff(bytes, count);
    switch (found) {
    case KIND_PNG: return fhimg_png_size(bytes, count, width, height, reason, reason_size);
    case KIND_JPEG: return fhimg_jpeg_size(bytes, count, width, height, reason, reason_size);
    default: return not_decoded(found, count, reason, reason_size);
    }
}

void fhimg_preload(int fetches) {
    fhimg_load_png();
    fhimg_load_jpeg();
    if (fetches) fhimg_load_curl();
}
