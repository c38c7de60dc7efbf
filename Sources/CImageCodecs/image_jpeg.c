// JPEG through libjpeg's API (libjpeg62-turbo), loaded with dlopen at first use; the error manager
// returns through longjmp. libjpeg's types come from <jpeglib.h> when the -dev package was there at
// build time; without it, JPEG reports how to get it.
#include "image_codecs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FHIMG_HAS_JPEG_HEADERS
#include <jpeglib.h>

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
// Kept for the encoder, which looks up its own functions.
static void *jpeg_handle;

static void load_jpeg(void) {
    static const char *const names[] = {"libjpeg.so.62", "libjpeg.so.8", "libjpeg.so", NULL};
    void *handle = fhimg_open_first(names);
    if (!handle) return;
    jpeg_handle = handle;
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
    if (!jpeg_loaded) return fhimg_say(reason, size, FHIMG_NO_LIBRARY, "JPEG needs libjpeg.so.62 (apt install libjpeg62-turbo)");
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
        return fhimg_say(reason, size, status ? status : FHIMG_CORRUPT, "damaged JPEG: %s", failure.message);
    }
    jpeg.create_decompress(&info, JPEG_LIB_VERSION, sizeof info);
    jpeg.mem_src(&info, bytes, (unsigned long)count);
    jpeg.read_header(&info, TRUE);
    if (declared_w) *declared_w = (int32_t)info.image_width;
    if (declared_h) *declared_h = (int32_t)info.image_height;
    int problem = fhimg_declared_size_problem(info.image_width, info.image_height, reason, size);
    if (problem || header_only) {
        jpeg.destroy_decompress(&info);
        return problem;
    }
    info.out_color_space = JCS_RGB;
    // DCT scaling: decode at 1/2, 1/4 or 1/8 while that is still at least twice the thumbnail.
    int32_t w, h;
    fhimg_fitted((int32_t)info.image_width, (int32_t)info.image_height, max_w, max_h, &w, &h);
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
        return fhimg_say(reason, size, FHIMG_CORRUPT, "damaged or truncated JPEG: %s", failure.message);
    }
    fhimg_fitted((int32_t)info.output_width, (int32_t)info.output_height, max_w, max_h, &w, &h);
    status = fhimg_box_scaled(full, (int32_t)info.output_width, (int32_t)info.output_height, stride, w, h, out);
    free(full);
    jpeg.destroy_decompress(&info);
    return status ? fhimg_say(reason, size, status, "no memory for the thumbnail") : FHIMG_OK;
}

int fhimg_jpeg_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason, size_t size) {
    return jpeg_decode(bytes, count, 1, 1, 1, width, height, NULL, reason, size);
}

int fhimg_jpeg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h, fhimg_picture *out,
                         char *reason, size_t size) {
    return jpeg_decode(bytes, count, max_w, max_h, 0, NULL, NULL, out, reason, size);
}

int fhimg_encode_jpeg(const uint8_t *rgb, int32_t width, int32_t height, int quality, uint8_t **out_bytes,
                      size_t *out_count) {
    *out_bytes = NULL;
    *out_count = 0;
    pthread_once(&jpeg_once, load_jpeg);
    if (!jpeg_loaded) return FHIMG_NO_LIBRARY;
    void *handle = jpeg_handle;
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

void fhimg_load_jpeg(void) { pthread_once(&jpeg_once, load_jpeg); }
#else
int fhimg_jpeg_size(const uint8_t *bytes, size_t count, int32_t *width, int32_t *height, char *reason, size_t size) {
    (void)bytes, (void)count, (void)width, (void)height;
    return fhimg_say(reason, size, FHIMG_NO_LIBRARY, "JPEG was not built in");
}

int fhimg_jpeg_thumbnail(const uint8_t *bytes, size_t count, int32_t max_w, int32_t max_h, fhimg_picture *out,
                         char *reason, size_t size) {
    (void)bytes, (void)count, (void)max_w, (void)max_h, (void)out;
    return fhimg_say(reason, size, FHIMG_NO_LIBRARY,
                     "JPEG was not built in (apt install libjpeg62-turbo-dev, then rebuild the host)");
}

int fhimg_encode_jpeg(const uint8_t *rgb, int32_t width, int32_t height, int quality, uint8_t **out_bytes,
                      size_t *out_count) {
    (void)rgb, (void)width, (void)height, (void)quality;
    *out_bytes = NULL;
    *out_count = 0;
    return FHIMG_NO_LIBRARY;
}

void fhimg_load_jpeg(void) {}
#endif
