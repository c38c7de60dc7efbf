// Fetching image bytes with libcurl's easy API, loaded with dlopen at first use. Its calls are
// declared here: curl/curl.h's option numbers are stable across libcurl 7 and 8.
#include "image_codecs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    void *handle = fhimg_open_first(names);
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

void fhimg_load_curl(void) { pthread_once(&curl_once, load_curl); }

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
    if (!curl_loaded) return fhimg_say(reason, reason_size, FHIMG_NO_LIBRARY, "fetching needs libcurl.so.4 (apt install libcurl4)");
    void *easy = curl.easy_init();
    if (!easy) return fhimg_say(reason, reason_size, FHIMG_NO_MEMORY, "libcurl could not start");
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
        result = fhimg_say(reason, reason_size, FHIMG_FETCH_FAILED, "larger than %zu bytes", max_bytes);
    } else if (code == FH_CURLE_OPERATION_TIMEDOUT) {
        result = fhimg_say(reason, reason_size, FHIMG_FETCH_FAILED, "no answer within %ld ms", timeout_ms);
    } else if (code != 0) {
        result = fhimg_say(reason, reason_size, FHIMG_FETCH_FAILED, "%s", curl.easy_strerror(code));
    } else if (status < 200 || status > 299) {
        result = fhimg_say(reason, reason_size, FHIMG_FETCH_FAILED, "HTTP %ld", status);
    } else if (type && *type && strncasecmp(type, "image/", 6) != 0) {
        char shown[48];
        snprintf(shown, sizeof shown, "%s", type);
        result = fhimg_say(reason, reason_size, FHIMG_FETCH_FAILED, "served as '%s', not an image", shown);
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
