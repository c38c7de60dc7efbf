// JPEG (libjpeg62-turbo), PNG (libpng16's simplified API) and fetching (libcurl), each loaded with
// dlopen at first use. libjpeg's types come from <jpeglib.h> when the -dev package was there at
// build time; without it, JPEG reports how to get it. libpng's simplified API and libcurl's easy
// API are declared here (their layouts and option numbers are part of their stable ABIs).
#include "image_codecs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if __has_include(<jpeglib.h>)
#include <jpeglib.h>
#define FHIMG_HAS_JPEG_HEADERS 1
#endif

static int say(char *reason, size_t size, int status, const char *format, ...) {
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

static int declared_size_problem(long width, long height, char *reason, size_t size) {
    if (width <= 0 || height <= 0) return say(reason, size, FHIMG_CORRUPT, "the image declares %ldx%ld pixels", width, height);
    if (width > FHIMG_MAX_SIDE || height > FHIMG_MAX_SIDE || width * height > FHIMG_MAX_PIXELS) {
        return say(reason, size, FHIMG_TOO_LARGE, "%ldx%ld pixels is more than this host decodes (at most %ld pixels)",
                   width, height, (long)FHIMG_MAX_PIXELS);
    }
    return FHIMG_OK;
}

/* Fits width x height within max_width x max_height, keeping the ratio, never enlarging. */
static void fitted(int32_t width, int32_t height, int32_t max_width, int32_t max_height, int32_t *out_w, int32_t *out_h) {
    double scale = 1.0;
    if (width > max_width) scale = (double)max_width / width;
    if (height * scale > max_height) scale = (double)max_height / height;
    int32_t w = (int32_t)(width * scale + 0.5), h = (int32_t)(height * scale + 0.5);
    *out_w = w < 1 ? 1 : w;
    *out_h = h < 1 ? 1 : h;
}

/* Box-filters the RGB source down to target_w x target_h (each target pixel averages the source
 * pixels its area covers). */
static int box_scaled(const uint8_t *source, int32_t width, int32_t height, size_t stride, int32_t target_w,
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

static void *open_first(const char *const *names) {
    for (; *names; names++) {
        void *handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
    }
    return NULL;
}

/* ---- PNG: libpng16's simplified API (png.h, "Simplified API"; png_image is version 1) ---------- */

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
} png;
static int png_loaded;
static pthread_once_t png_once = PTHREAD_ONCE_INIT;

static void load_png(void) {
    static const char *const names[] = {"libpng16.so.16", "libpng16.so", NULL};
    void *handle = open_first(names);
    if (!handle) return;
    *(void **)&png.begin_read_from_memory = dlsym(handle, "png_image_begin_read_from_memory");
    *(void **)&png.finish_read = dlsym(handle, "png_image_finish_read");
    *(void **)&png.image_free = dlsym(handle, "png_image_free");
    png_loaded = png.begin_read_from_memory && png.finish_read && png.image_free;
}

static int png_header(const uint8_t *bytes, size_t count, fh_png_image *image, char *reason, size_t size) {
    pthread_once(&png_once, load_png);
    if (!png_loaded) return say(reason, size, FHIMG_NO_LIBRARY, "PNG needs libpng16.so.16 (apt install libpng16-16)");
    memset(image, 0, sizeof *image);
    image->version = FH_PNG_IMAGE_VERSION;
    if (!png.begin_read_from_memory(image, bytes, count)) {
        return say(reason, size, FHIMG_CORRUPT, "damaged PNG: %s", image->message);
    }
    int problem = declared_size_problem(image->width, image->height, reason, size);
    if (problem) png.image_free(image);
    return problem;
}

static int png_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h, fhimg_picture *out,
                         char *reason, size_t size) {
    fh_png_image image;
    int status = png_header(bytes, count, &image, reason, size);
    if (status) return status;
    image.format = FH_PNG_FORMAT_RGB;
    size_t stride = (size_t)image.width * 3;
    uint8_t *full = malloc(stride * image.height);
    if (!full) {
        png.image_free(&image);
        return say(reason, size, FHIMG_NO_MEMORY, "no memory for a %ux%u PNG", image.width, image.height);
    }
    if (!png.finish_read(&image, NULL, full, (int32_t)stride, NULL)) {
        free(full);
        png.image_free(&image);
        return say(reason, size, FHIMG_CORRUPT, "damaged or truncated PNG: %s", image.message);
    }
    int32_t w, h;
    fitted((int32_t)image.width, (int32_t)image.height, max_w, max_h, &w, &h);
    status = box_scaled(full, (int32_t)image.width, (int32_t)image.height, stride, w, h, out);
    free(full);
    png.image_free(&image);
    return status ? say(reason, size, status, "no memory for the thumbnail") : FHIMG_OK;
}

/* ---- JPEG: libjpeg's API, the error manager returning through longjmp ------------------------ */

#ifdef FHIMG_HAS_JPEG_HEADERS
static struct {
    struct jpeg_error_mgr *(*std_error)(struct jpeg_error_mgr *);
    void (*create_decompress)(j_decompress_ptr, int, size_t);
    void (*mem_src)(j_decompress_ptr, const unsigned char *, unsigned long);
    int (*read_header)(j_decompress_ptr, boolean);
    boolean (*start_decompress)(j_decompress_ptr);
    JDIMENSION (*read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION);
    void (*destroy_decompress)(j_decompress_ptr);
} jpeg;
static int jpeg_loaded;
static pthread_once_t jpeg_once = PTHREAD_ONCE_INIT;

static void load_jpeg(void) {
    static const char *const names[] = {"libjpeg.so.62", "libjpeg.so.8", "libjpeg.so", NULL};
    void *handle = open_first(names);
    if (!handle) return;
    *(void **)&jpeg.std_error = dlsym(handle, "jpeg_std_error");
    *(void **)&jpeg.create_decompress = dlsym(handle, "jpeg_CreateDecompress");
    *(void **)&jpeg.mem_src = dlsym(handle, "jpeg_mem_src");
    *(void **)&jpeg.read_header = dlsym(handle, "jpeg_read_header");
    *(void **)&jpeg.start_decompress = dlsym(handle, "jpeg_start_decompress");
    *(void **)&jpeg.read_scanlines = dlsym(handle, "jpeg_read_scanlines");
    *(void **)&jpeg.destroy_decompress = dlsym(handle, "jpeg_destroy_decompress");
    jpeg_loaded = jpeg.std_error && jpeg.create_decompress && jpeg.mem_src && jpeg.read_header &&
                  jpeg.start_decompress && jpeg.read_scanlines && jpeg.destroy_decompress;
}

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    int warned;
} jpeg_failure;

static void jpeg_error_exit(j_common_ptr info) {
    jpeg_failure *failure = (jpeg_failure *)info->err;
    failure->manager.format_message(info, failure->message);
    longjmp(failure->escape, 1);
}

/* A warning (data ends early, a corrupt segment) makes the picture partly grey: refused too. */
static void jpeg_emit_message(j_common_ptr info, int level) {
    jpeg_failure *failure = (jpeg_failure *)info->err;
    if (level < 0 && !failure->warned) {
        failure->warned = 1;
        failure->manager.format_message(info, failure->message);
    }
}

static int jpeg_decode(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h, int header_only,
                       int32_t *declared_w, int32_t *declared_h, fhimg_picture *out, char *reason, size_t size) {
    pthread_once(&jpeg_once, load_jpeg);
    if (!jpeg_loaded) return say(reason, size, FHIMG_NO_LIBRARY, "JPEG needs libjpeg.so.62 (apt install libjpeg62-turbo)");
    struct jpeg_decompress_struct info;
    jpeg_failure failure;
    memset(&failure, 0, sizeof failure);
    uint8_t *volatile full = NULL;
    volatile int status = FHIMG_OK;
    info.err = jpeg.std_error(&failure.manager);
    failure.manager.error_exit = jpeg_error_exit;
    failure.manager.emit_message = jpeg_emit_message;
    if (setjmp(failure.escape)) {
        free(full);
        jpeg.destroy_decompress(&info);
        return say(reason, size, status ? status : FHIMG_CORRUPT, "damaged JPEG: %s", failure.message);
    }
    jpeg.create_decompress(&info, JPEG_LIB_VERSION, sizeof info);
    jpeg.mem_src(&info, bytes, (unsigned long)count);
    jpeg.read_header(&info, TRUE);
    if (declared_w) *declared_w = (int32_t)info.image_width;
    if (declared_h) *declared_h = (int32_t)info.image_height;
    int problem = declared_size_problem(info.image_width, info.image_height, reason, size);
    if (problem || header_only) {
        jpeg.destroy_decompress(&info);
        return problem;
    }
    info.out_color_space = JCS_RGB;
    // DCT scaling: decode at 1/2, 1/4 or 1/8 while that is still at least twice the thumbnail.
    int32_t w, h;
    fitted((int32_t)info.image_width, (int32_t)info.image_height, max_w, max_h, &w, &h);
    unsigned denominator = 1;
    while (denominator < 8 && info.image_width / (denominator * 2) >= (unsigned)w * 2 &&
           info.image_height / (denominator * 2) >= (unsigned)h * 2)
        denominator *= 2;
    info.scale_num = 1;
    info.scale_denom = denominator;
    jpeg.start_decompress(&info);
    if (info.output_components != 3) {
        status = FHIMG_UNSUPPORTED;
        snprintf(failure.message, sizeof failure.message, "%d colour components", info.output_components);
        longjmp(failure.escape, 1);
    }
    size_t stride = (size_t)info.output_width * 3;
    full = malloc(stride * info.output_height);
    if (!full) {
        status = FHIMG_NO_MEMORY;
        snprintf(failure.message, sizeof failure.message, "no memory for %ux%u pixels", info.output_width,
                 info.output_height);
        longjmp(failure.escape, 1);
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = full + (size_t)info.output_scanline * stride;
        if (jpeg.read_scanlines(&info, &row, 1) != 1) break;
    }
    if (failure.warned) {
        free(full);
        jpeg.destroy_decompress(&info);
        return say(reason, size, FHIMG_CORRUPT, "damaged or truncated JPEG: %s", failure.message);
    }
    fitted((int32_t)info.output_width, (int32_t)info.output_height, max_w, max_h, &w, &h);
    status = box_scaled(full, (int32_t)info.output_width, (int32_t)info.output_height, stride, w, h, out);
    free(full);
    jpeg.destroy_decompress(&info);
    return status ? say(reason, size, status, "no memory for the thumbnail") : FHIMG_OK;
}
#endif

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
    case KIND_GIF: return say(reason, size, FHIMG_UNSUPPORTED, "a GIF (only JPEG and PNG are drawn)");
    case KIND_WEBP: return say(reason, size, FHIMG_UNSUPPORTED, "a WebP image (only JPEG and PNG are drawn)");
    case KIND_TEXT: return say(reason, size, FHIMG_UNSUPPORTED, "text, not an image");
    default:
        if (count == 0) return say(reason, size, FHIMG_CORRUPT, "no bytes");
        return say(reason, size, FHIMG_UNSUPPORTED, "not a JPEG or PNG image");
    }
}

int fhimg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_width, int32_t max_height, fhimg_picture *out,
                    char *reason, size_t reason_size) {
    memset(out, 0, sizeof *out);
    if (reason && reason_size) reason[0] = '\0';
    if (max_width < 1 || max_height < 1) return say(reason, reason_size, FHIMG_TOO_LARGE, "no room for a thumbnail");
    kind found = sniff(bytes, count);
    switch (found) {
    case KIND_PNG: return png_thumbnail(bytes, count, max_width, max_height, out, reason, reason_size);
    case KIND_JPEG:
#ifdef FHIMG_HAS_JPEG_HEADERS
        return jpeg_decode(bytes, count, max_width, max_height, 0, NULL, NULL, out, reason, reason_size);
#else
        return say(reason, reason_size, FHIMG_NO_LIBRARY,
                   "JPEG was not built in (apt install libjpeg62-turbo-dev, then rebuild the host)");
#endif
    default: return not_decoded(found, count, reason, reason_size);
    }
}

int fhimg_header_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason,
                      size_t reason_size) {
    *width = *height = 0;
    kind found = sniff(bytes, count);
    if (found == KIND_PNG) {
        fh_png_image image;
        int status = png_header(bytes, count, &image, reason, reason_size);
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
    if (found == KIND_JPEG) {
#ifdef FHIMG_HAS_JPEG_HEADERS
        return jpeg_decode(bytes, count, 1, 1, 1, width, height, NULL, reason, reason_size);
#else
        return say(reason, reason_size, FHIMG_NO_LIBRARY, "JPEG was not built in");
#endif
    }
    return not_decoded(found, count, reason, reason_size);
}

/* ---- fetching: libcurl's easy API (curl/curl.h option numbers, stable across libcurl 7 and 8) -- */

enum {
    FH_CURLOPT_WRITEDATA = 10001,
    FH_CURLOPT_URL = 10002,
    FH_CURLOPT_USERAGENT = 10018,
    FH_CURLOPT_WRITEFUNCTION = 20011,
    FH_CURLOPT_FOLLOWLOCATION = 52,
    FH_CURLOPT_MAXREDIRS = 68,
    FH_CURLOPT_NOSIGNAL = 99,
    FH_CURLOPT_TIMEOUT_MS = 155,
    FH_CURLOPT_CONNECTTIMEOUT_MS = 156,
    FH_CURLOPT_PROTOCOLS = 181,
    FH_CURLOPT_REDIR_PROTOCOLS = 182,
    FH_CURLPROTO_HTTP_HTTPS = 1 | 2,
    FH_CURLINFO_RESPONSE_CODE = 0x200000 + 2,
    FH_CURLINFO_CONTENT_TYPE = 0x100000 + 18,
    FH_CURLE_WRITE_ERROR = 23,
    FH_CURLE_OPERATION_TIMEDOUT = 28,
};

static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    const char *(*easy_strerror)(int);
    void (*easy_cleanup)(void *);
} curl;
static int curl_loaded;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void) {
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4", NULL};
    void *handle = open_first(names);
    if (!handle) return;
    *(void **)&curl.global_init = dlsym(handle, "curl_global_init");
    *(void **)&curl.easy_init = dlsym(handle, "curl_easy_init");
    *(void **)&curl.easy_setopt = dlsym(handle, "curl_easy_setopt");
    *(void **)&curl.easy_perform = dlsym(handle, "curl_easy_perform");
    *(void **)&curl.easy_getinfo = dlsym(handle, "curl_easy_getinfo");
    *(void **)&curl.easy_strerror = dlsym(handle, "curl_easy_strerror");
    *(void **)&curl.easy_cleanup = dlsym(handle, "curl_easy_cleanup");
    curl_loaded = curl.global_init && curl.easy_init && curl.easy_setopt && curl.easy_perform && curl.easy_getinfo &&
                  curl.easy_strerror && curl.easy_cleanup;
    if (curl_loaded) curl.global_init(3 /* CURL_GLOBAL_DEFAULT */);
}

typedef struct {
    uint8_t *bytes;
    size_t count, capacity, limit;
    int over;
} body;

static size_t take(char *data, size_t item, size_t items, void *context) {
    body *into = context;
    size_t count = item * items;
    if (into->count + count > into->limit) {
        into->over = 1;
        return 0;
    }
    if (into->count + count > into->capacity) {
        size_t capacity = into->capacity ? into->capacity * 2 : 65536;
        while (capacity < into->count + count) capacity *= 2;
        if (capacity > into->limit) capacity = into->limit;
        uint8_t *grown = realloc(into->bytes, capacity);
        if (!grown) return 0;
        into->bytes = grown;
        into->capacity = capacity;
    }
    memcpy(into->bytes + into->count, data, count);
    into->count += count;
    return count;
}

int fhimg_fetch(const char *url, size_t max_bytes, long timeout_ms, uint8_t **out_bytes, size_t *out_count,
                char *reason, size_t reason_size) {
    *out_bytes = NULL;
    *out_count = 0;
    pthread_once(&curl_once, load_curl);
    if (!curl_loaded) return say(reason, reason_size, FHIMG_NO_LIBRARY, "fetching needs libcurl.so.4 (apt install libcurl4)");
    void *easy = curl.easy_init();
    if (!easy) return say(reason, reason_size, FHIMG_NO_MEMORY, "libcurl could not start");
    body into = {.limit = max_bytes};
    curl.easy_setopt(easy, FH_CURLOPT_URL, url);
    curl.easy_setopt(easy, FH_CURLOPT_WRITEFUNCTION, take);
    curl.easy_setopt(easy, FH_CURLOPT_WRITEDATA, &into);
    curl.easy_setopt(easy, FH_CURLOPT_USERAGENT, "featurehost-images/1");
    curl.easy_setopt(easy, FH_CURLOPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(easy, FH_CURLOPT_MAXREDIRS, 5L);
    curl.easy_setopt(easy, FH_CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(easy, FH_CURLOPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(easy, FH_CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl.easy_setopt(easy, FH_CURLOPT_PROTOCOLS, (long)FH_CURLPROTO_HTTP_HTTPS);
    curl.easy_setopt(easy, FH_CURLOPT_REDIR_PROTOCOLS, (long)FH_CURLPROTO_HTTP_HTTPS);
    int code = curl.easy_perform(easy);
    long status = 0;
    char *type = NULL;
    curl.easy_getinfo(easy, FH_CURLINFO_RESPONSE_CODE, &status);
    curl.easy_getinfo(easy, FH_CURLINFO_CONTENT_TYPE, &type);
    int result = FHIMG_OK;
    if (into.over) {
        result = say(reason, reason_size, FHIMG_FETCH_FAILED, "larger than %zu bytes", max_bytes);
    } else if (code == FH_CURLE_OPERATION_TIMEDOUT) {
        result = say(reason, reason_size, FHIMG_FETCH_FAILED, "no answer within %ld ms", timeout_ms);
    } else if (code != 0) {
        result = say(reason, reason_size, FHIMG_FETCH_FAILED, "%s", curl.easy_strerror(code));
    } else if (status < 200 || status > 299) {
        result = say(reason, reason_size, FHIMG_FETCH_FAILED, "HTTP %ld", status);
    } else if (type && *type && strncasecmp(type, "image/", 6) != 0) {
        char shown[48];
        snprintf(shown, sizeof shown, "%s", type);
        result = say(reason, reason_size, FHIMG_FETCH_FAILED, "served as '%s', not an image", shown);
    }
    curl.easy_cleanup(easy);
    if (result != FHIMG_OK) {
        free(into.bytes);
        return result;
    }
    *out_bytes = into.bytes;
    *out_count = into.count;
    return FHIMG_OK;
}

/* ---- encoders (tests, benchmarks) ------------------------------------------------------------ */

int fhimg_encode_png(const uint8_t *rgb, int32_t width, int32_t height, uint8_t **out_bytes, size_t *out_count) {
    *out_bytes = NULL;
    *out_count = 0;
    pthread_once(&png_once, load_png);
    static int (*write_to_memory)(fh_png_image *, void *, size_t *, int, const void *, int32_t, const void *);
    if (!png_loaded) return FHIMG_NO_LIBRARY;
    if (!write_to_memory) {
        static const char *const names[] = {"libpng16.so.16", "libpng16.so", NULL};
        void *handle = open_first(names);
        if (handle) *(void **)&write_to_memory = dlsym(handle, "png_image_write_to_memory");
        if (!write_to_memory) return FHIMG_NO_LIBRARY;
    }
    fh_png_image image;
    memset(&image, 0, sizeof image);
    image.version = FH_PNG_IMAGE_VERSION;
    image.width = (uint32_t)width;
    image.height = (uint32_t)height;
    image.format = FH_PNG_FORMAT_RGB;
    size_t size = 0;
    if (!write_to_memory(&image, NULL, &size, 0, rgb, width * 3, NULL)) return FHIMG_CORRUPT;
    uint8_t *bytes = malloc(size);
    if (!bytes) return FHIMG_NO_MEMORY;
    if (!write_to_memory(&image, bytes, &size, 0, rgb, width * 3, NULL)) {
        free(bytes);
        return FHIMG_CORRUPT;
    }
    *out_bytes = bytes;
    *out_count = size;
    return FHIMG_OK;
}

#ifdef FHIMG_HAS_JPEG_HEADERS
int fhimg_encode_jpeg(const uint8_t *rgb, int32_t width, int32_t height, int quality, uint8_t **out_bytes,
                      size_t *out_count) {
    *out_bytes = NULL;
    *out_count = 0;
    pthread_once(&jpeg_once, load_jpeg);
    if (!jpeg_loaded) return FHIMG_NO_LIBRARY;
    static const char *const names[] = {"libjpeg.so.62", "libjpeg.so.8", "libjpeg.so", NULL};
    void *handle = open_first(names);
    void (*create)(j_compress_ptr, int, size_t);
    void (*set_defaults)(j_compress_ptr);
    void (*set_quality)(j_compress_ptr, int, boolean);
    void (*mem_dest)(j_compress_ptr, unsigned char **, unsigned long *);
    void (*start)(j_compress_ptr, boolean);
    JDIMENSION (*write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
    void (*finish)(j_compress_ptr);
    void (*destroy)(j_compress_ptr);
    *(void **)&create = dlsym(handle, "jpeg_CreateCompress");
    *(void **)&set_defaults = dlsym(handle, "jpeg_set_defaults");
    *(void **)&set_quality = dlsym(handle, "jpeg_set_quality");
    *(void **)&mem_dest = dlsym(handle, "jpeg_mem_dest");
    *(void **)&start = dlsym(handle, "jpeg_start_compress");
    *(void **)&write_scanlines = dlsym(handle, "jpeg_write_scanlines");
    *(void **)&finish = dlsym(handle, "jpeg_finish_compress");
    *(void **)&destroy = dlsym(handle, "jpeg_destroy_compress");
    if (!create || !set_defaults || !set_quality || !mem_dest || !start || !write_scanlines || !finish || !destroy)
        return FHIMG_NO_LIBRARY;
    struct jpeg_compress_struct info;
    jpeg_failure failure;
    memset(&failure, 0, sizeof failure);
    info.err = jpeg.std_error(&failure.manager);
    failure.manager.error_exit = jpeg_error_exit;
    unsigned char *volatile bytes = NULL;
    unsigned long size = 0;
    if (setjmp(failure.escape)) {
        destroy(&info);
        free(bytes);
        return FHIMG_CORRUPT;
    }
    create(&info, JPEG_LIB_VERSION, sizeof info);
    mem_dest(&info, (unsigned char **)&bytes, &size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    set_defaults(&info);
    set_quality(&info, quality, TRUE);
    start(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * width * 3);
        write_scanlines(&info, &row, 1);
    }
    finish(&info);
    destroy(&info);
    *out_bytes = bytes;
    *out_count = size;
    return FHIMG_OK;
}
#else
int fhimg_encode_jpeg(const uint8_t *rgb, int32_t width, int32_t height, int quality, uint8_t **out_bytes,
                      size_t *out_count) {
    (void)rgb, (void)width, (void)height, (void)quality;
    *out_bytes = NULL;
    *out_count = 0;
    return FHIMG_NO_LIBRARY;
}
#endif
