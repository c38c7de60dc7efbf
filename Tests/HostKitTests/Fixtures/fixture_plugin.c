// A small plugin in C for the host's tests. Built by the tests with `cc -shared`, once per
// variant: FIXTURE_* macros break one rule of the ABI each, so the loader's errors can be checked.
//
// Feature "fixture" (id overridable with -DFIXTURE_ID): state {"count","disorder","foreign","pings",
// "reentered"}. Actions: tick {tag, thread, n} counts ticks carrying this instance's tag (config
// {"tag": "..."}) and counts as disorder a tick whose n does not follow its thread's previous one;
// burst {threads, per} starts threads that each emit `per` numbered ticks; ping {limit} re-emits itself
// as feedback until `pings` reaches limit (0: forever, for the runaway guard).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature_abi.h"

#ifndef FIXTURE_ID
#define FIXTURE_ID "fixture"
#endif

#define MAX_THREADS 16

struct fh_instance {
    const fh_host *host;
    char tag[32];
    int started, stopped;
    long count, foreign, pings, disorder;
    long last[MAX_THREADS];
    int reentered, in_dispatch;
    pthread_t threads[MAX_THREADS];
    int thread_count;
    char out[512];
    char error[256];
};

struct burst { fh_instance *instance; long per; int thread; };

static long number_after(const char *json, const char *key, long fallback) {
    const char *at = strstr(json, key);
    if (!at) return fallback;
    at = strchr(at + strlen(key), ':');
    return at ? strtol(at + 1, NULL, 10) : fallback;
}

static fh_status fail(fh_instance *instance, fh_status status, const char *message) {
    snprintf(instance->error, sizeof instance->error, "%s", message);
    return status;
}

static fh_status create(const fh_host *host, const char *config, fh_instance **out) {
    fh_instance *instance = calloc(1, sizeof *instance);
    *out = instance;
    if (!instance) return FH_ERR_INTERNAL;
    instance->host = host;
    const char *tag = config ? strstr(config, "\"tag\":\"") : NULL;
    if (tag) sscanf(tag + 7, "%31[^\"]", instance->tag);
    if (config && strstr(config, "\"refuse\"")) return fail(instance, FH_ERR_BAD_CONFIG, "config 'refuse' is set");
    return FH_OK;
}

static fh_status start(fh_instance *instance) {
    if (instance->started) return fail(instance, FH_ERR_LIFECYCLE, "start: already started");
    instance->started = 1;
    return FH_OK;
}

static void *burst_thread(void *argument) {
    struct burst *burst = argument;
    char action[128];
    for (long i = 1; i <= burst->per; i++) {
        snprintf(action, sizeof action, "{\"type\":\"tick\",\"tag\":\"%s\",\"thread\":%d,\"n\":%ld}",
                 burst->instance->tag, burst->thread, i);
        burst->instance->host->emit(action, FH_ORIGIN_EFFECT);
    }
    burst->instance->host->effect_ended();
    free(burst);
    return NULL;
}

static fh_status dispatch(fh_instance *instance, const char *action, uint32_t *flags) {
    if (!instance->started || instance->stopped) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: not started");
    if (instance->in_dispatch) instance->reentered = 1;
    instance->in_dispatch = 1;
    fh_status status = FH_OK;
    uint32_t changed = 1;
    if (action[0] != '{' || !strstr(action, "\"type\"")) {
        status = fail(instance, FH_ERR_BAD_ACTION, "action is not a JSON object with a type");
    } else if (strstr(action, "\"tick\"")) {
        char tag[40];
        snprintf(tag, sizeof tag, "\"tag\":\"%s\"", instance->tag);
        if (strstr(action, tag)) instance->count++; else instance->foreign++;
        long thread = number_after(action, "\"thread\"", -1), n = number_after(action, "\"n\"", -1);
        if (thread >= 0 && thread < MAX_THREADS) {
            if (n != instance->last[thread] + 1) instance->disorder++;
            instance->last[thread] = n;
        }
    } else if (strstr(action, "\"burst\"")) {
        long threads = number_after(action, "\"threads\"", 1), per = number_after(action, "\"per\"", 1);
        for (long t = 0; t < threads && instance->thread_count < MAX_THREADS; t++) {
            struct burst *burst = malloc(sizeof *burst);
            burst->instance = instance;
            burst->per = per;
            burst->thread = instance->thread_count;
            instance->host->effect_began();
            pthread_create(&instance->threads[instance->thread_count++], NULL, burst_thread, burst);
        }
        changed = 0;
    } else if (strstr(action, "\"ping\"")) {
        long limit = number_after(action, "\"limit\"", 0);
        instance->pings++;
        if (limit == 0 || instance->pings < limit) instance->host->emit(action, FH_ORIGIN_FEEDBACK);
    } else if (strstr(action, "\"step\"")) {
        // Emit the navigation step named by "name", when the host navigates.
        const fh_host_navigation *navigation = instance->host->get_extension(FH_EXT_NAVIGATION);
        char name[32] = "", step[96];
        const char *at = strstr(action, "\"name\":\"");
        if (at) sscanf(at + 8, "%31[^\"]", name);
        snprintf(step, sizeof step, "{\"step\":\"%s\"}", name);
        if (navigation) navigation->emit_step(step);
        changed = 0;
    } else if (strstr(action, "\"created\"") || strstr(action, "\"restored\"")) {
        changed = 0;
    } else {
        status = fail(instance, FH_ERR_BAD_ACTION, "unknown action type");
    }
    instance->in_dispatch = 0;
    if (status == FH_OK && flags) *flags = changed ? FH_DISPATCH_STATE_CHANGED : 0;
    return status;
}

static fh_status reduce(fh_instance *instance, const char *action, uint32_t *flags) {
    // Replay: only ticks change this fixture's state without effects.
    if (instance->stopped) return fail(instance, FH_ERR_LIFECYCLE, "reduce: stopped");
    if (!strstr(action, "\"tick\"")) return fail(instance, FH_ERR_BAD_ACTION, "reduce only replays ticks");
    instance->count++;
    if (flags) *flags = FH_DISPATCH_STATE_CHANGED;
    return FH_OK;
}

static fh_status snapshot(fh_instance *instance, const char **out) {
    snprintf(instance->out, sizeof instance->out,
             "{\"count\":%ld,\"disorder\":%ld,\"foreign\":%ld,\"pings\":%ld,\"reentered\":%d}",
             instance->count, instance->disorder, instance->foreign, instance->pings, instance->reentered);
    *out = instance->out;
    return FH_OK;
}

static fh_status restore(fh_instance *instance, const char *state) {
    if (instance->stopped) return fail(instance, FH_ERR_LIFECYCLE, "restore: stopped");
    if (!strstr(state, "\"count\"")) return fail(instance, FH_ERR_BAD_STATE, "state has no count");
    instance->count = number_after(state, "\"count\"", 0);
    return FH_OK;
}

static fh_status render(fh_instance *instance, const char **out) {
    snprintf(instance->out, sizeof instance->out, "fixture %s\ncount: %ld", instance->tag, instance->count);
    *out = instance->out;
    return FH_OK;
}

static fh_status stop(fh_instance *instance) {
    if (!instance->started || instance->stopped) return fail(instance, FH_ERR_LIFECYCLE, "stop: not started");
    // Join the emitting threads: once stop returns the plugin makes no callback.
    for (int t = 0; t < instance->thread_count; t++) pthread_join(instance->threads[t], NULL);
    instance->thread_count = 0;
    instance->stopped = 1;
    return FH_OK;
}

static void destroy(fh_instance *instance) {
    if (!instance) return;
    if (instance->started && !instance->stopped) stop(instance);
    free(instance);
}

static const char *last_error(const fh_instance *instance) { return instance->error; }

#ifdef FIXTURE_BAD_MANIFEST
#define MANIFEST "this is not json"
#elif defined(FIXTURE_MANIFEST_NO_NAME)
#define MANIFEST "{\"id\":\"" FIXTURE_ID "\",\"version\":\"1.0.0\",\"actions\":[]}"
#else
#define MANIFEST                                                                                   \
    "{\"id\":\"" FIXTURE_ID "\",\"name\":\"Fixture\",\"version\":\"0.0.1\",\"description\":\"test\"," \
    "\"actions\":[{\"type\":\"tick\",\"help\":\"count one\",\"arguments\":[{\"name\":\"tag\","    \
    "\"type\":\"string\",\"help\":\"instance tag\",\"required\":false}]},"                          \
    "{\"type\":\"burst\",\"help\":\"emit from threads\",\"arguments\":[{\"name\":\"threads\","     \
    "\"type\":\"integer\",\"help\":\"\"},{\"name\":\"per\",\"type\":\"integer\",\"help\":\"\"}]},"    \
    "{\"type\":\"ping\",\"help\":\"feedback loop\",\"arguments\":[{\"name\":\"limit\","            \
    "\"type\":\"integer\",\"help\":\"0 forever\",\"required\":false}]},"                    \
    "{\"type\":\"step\",\"help\":\"emit a navigation step\",\"arguments\":[{\"name\":\"name\","     \
    "\"type\":\"string\",\"help\":\"\"}]}],\"steps\":[{\"step\":\"go\",\"help\":\"\"}]}"
#endif

static fh_plugin descriptor = {
    .struct_size = sizeof(fh_plugin),
#ifdef FIXTURE_WRONG_MAJOR
    .abi_major = 2,
#else
    .abi_major = FH_ABI_MAJOR,
#endif
#ifdef FIXTURE_NEWER_MINOR
    .abi_minor = FH_ABI_MINOR + 7,
#else
    .abi_minor = FH_ABI_MINOR,
#endif
    .manifest_json = MANIFEST,
    .create = create,
    .start = start,
#ifndef FIXTURE_MISSING_DISPATCH
    .dispatch = dispatch,
#endif
    .reduce = reduce,
    .snapshot = snapshot,
    .restore = restore,
    .render = render,
    .stop = stop,
    .destroy = destroy,
    .last_error = last_error,
    .get_extension = NULL,
};

#ifdef FIXTURE_NO_ENTRY
FH_EXPORT const fh_plugin *fh_plugin_entry(void) { return &descriptor; }
#else
FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) {
#if defined(FIXTURE_ENTRY_NULL)
    return NULL;
#else
#ifdef FIXTURE_SMALL_STRUCT
    descriptor.struct_size = 24;
#endif
    return &descriptor;
#endif
}
#endif
