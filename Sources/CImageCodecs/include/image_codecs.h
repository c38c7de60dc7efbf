/*
 * image_codecs.h - JPEG and PNG decoding to small RGB thumbnails, and fetching image bytes, for the
 * host's image views. libjpeg (libjpeg62-turbo), libpng16 and libcurl are loaded with dlopen at
 * first use, never linked: a machine without them builds and runs the host, and its views show
 * each image's alternative line with the reason.
 *
 * Every function is thread-safe. Errors come back as a status and one line in `reason`.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results. */
enum {
    FHIMG_OK = 0,
    /* The bytes are not an image this code decodes (GIF, WebP, HTML, ...). */
    FHIMG_UNSUPPORTED = 1,
    /* The image is damaged or truncated. */
    FHIMG_CORRUPT = 2,
    /* The header declares more pixels than the limits allow: refused before decoding. */
    FHIMG_TOO_LARGE = 3,
    /* The library needed is not on this machine. */
    FHIMG_NO_LIBRARY = 4,
    /* Fetching failed: no answer, an HTTP error, a timeout, too many bytes, a wrong type. */
    FHIMG_FETCH_FAILED = 5,
    /* Out of memory. */
    FHIMG_NO_MEMORY = 6,
};

/* Limits a decoder checks against an image's header before it allocates anything. */
#define FHIMG_MAX_SIDE 16384
#define FHIMG_MAX_PIXELS (4096L * 4096L)

/* An RGB picture: width * height * 3 bytes, rows top to bottom. Free with fhimg_free. */
typedef struct fhimg_picture {
    int32_t width;
    int32_t height;
    uint8_t *pixels;
} fhimg_picture;

/* Decodes the JPEG or PNG image in bytes[0, count) and scales it down (never up) to fit within
 * max_width x max_height, keeping its aspect ratio. On FHIMG_OK *out holds the picture; otherwise
 * *out is empty and reason (reason_size bytes, NUL-terminated) says why in one line. */
int fhimg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_width, int32_t max_height, fhimg_picture *out,
                    char *reason, size_t reason_size);

/* The declared size of a JPEG or PNG image, read from its header only. FHIMG_OK, or a status
 * and reason as above. */
int fhimg_header_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason,
                      size_t reason_size);

void fhimg_free(fhimg_picture *picture);

/* Loads the codecs' libraries (libpng, libjpeg, and libcurl when fetches is nonzero) now rather
 * than at their first use: an image child does it before its sandbox, where every open of the
 * loader's search would go through the sandbox's supervisor. Missing libraries are left for the
 * first use to report. */
void fhimg_preload(int fetches);

/* Fetches url (http or https) with libcurl: at most max_bytes bytes, within timeout_ms for the
 * whole transfer; an answer other than 2xx, or a Content-Type that is given and not image/...,
 * fails. On FHIMG_OK *out_bytes (malloc'd, free() it) and *out_count hold the body. */
int fhimg_fetch(const char *url, size_t max_bytes, long timeout_ms, uint8_t **out_bytes, size_t *out_count,
                char *reason, size_t reason_size);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Encoders, for tests and benchmarks that need images to decode: width x height RGB pixels to a
 * JPEG (quality 1-100) or a PNG. On FHIMG_OK *out_bytes (malloc'd, free() it) and *out_count hold
 * the file. */
int fhimg_encode_jpeg(const uint8_t *rgb, int32_t width, int32_t height, int quality, uint8_t **out_bytes,
                      size_t *out_count);
int fhimg_encode_png(const uint8_t *rgb, int32_t width, int32_t height, uint8_t **out_bytes, size_t *out_count);

#ifdef __cplusplus
}
#endif
