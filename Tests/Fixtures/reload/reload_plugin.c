// The C plugin of the hot-reload tests: a counter ("reloadable") built in several versions with
// `cc -shared` (FeatureTesting's ReloadFixture), one per set of macros:
//
// - (none): version 1.0.0. State {"count": n}. increment, wait (starts an effect that only stop
//   ends: something in flight for a reload to cancel).
// - RELOAD_VERSION="x.y.z": the manifest's version.
// - RELOAD_DOUBLE: a new action, double (count * 2).
// - RELOAD_RENAMED: the state field is "total", not "count": restoring {"count": n} is refused
//   with FH_ERR_BAD_STATE, as a renamed field in a real feature would be.
// - RELOAD_CRASH_ON_LOAD: the entry function crashes (SIGSEGV), as a broken build would.
// - RELOAD_HANG_ON_LOAD: the entry function never returns, as a build stuck in its loading would.
//
// The view is "Reloadable <version>" then "  count: <n>" (or "  total: <n>").
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feature_abi.h"

#ifndef RELOAD_VERSION
#define RELOAD_VERSION "1.0.0"
#endif

#ifdef RELOAD_RENAMED
#define FIELD "total"
#else
#define FIELD "count"
#endif

#ifdef RELOAD_DOUBLE
#define DOUBLE_ACTION ",{\"type\":\"double\",\"help\":\"Double the count\",\"arguments\":[]}"
#else
#define DOUBLE_ACTION ""
#endif

typedef enum { CREATED, STARTED, STOPPED } phase;

struct fh_instance {
    const fh_host *host;
    phase phase;
    long value;
    int waiting;
    char output[256];
    char error[256];
};

static fh_status fail(fh_instance *instance, fh_status status, const char *message) {
    snprintf(instance->error, sizeof instance->error, "%s", message);
    return status;
}

static const char *action_type(const char *json, char *out, size_t size) {
    const char *key = strstr(json, "\"type\"");
    out[0] = '\0';
    if (!key) return out;
    const char *colon = strchr(key + 6, ':');
    if (!colon) return out;
    const char *quote = strchr(colon, '"');
    if (!quote) return out;
    size_t length = 0;
    while (quote[1 + length] && quote[1 + length] != '"' && length + 1 < size) length++;
    memcpy(out, quote + 1, length);
    out[length] = '\0';
    return out;
}

static fh_status create(const fh_host *host, const char *config_json, fh_instance **out_instance) {
    (void)config_json;
    fh_instance *instance = calloc(1, sizeof *instance);
    if (!instance) return FH_ERR_INTERNAL;
    instance->host = host;
    *out_instance = instance;
    return FH_OK;
}

static fh_status start(fh_instance *instance) {
    if (instance->phase != CREATED) return fail(instance, FH_ERR_LIFECYCLE, "start: not created");
    instance->phase = STARTED;
    return FH_OK;
}

static fh_status apply(fh_instance *instance, const char *action_json, uint32_t *out_flags, int effects) {
    char type[32];
    action_type(action_json, type, sizeof type);
    long before = instance->value;
    if (strcmp(type, "created") == 0 || strcmp(type, "restored") == 0) {
    } else if (strcmp(type, "increment") == 0) {
        instance->value += 1;
#ifdef RELOAD_DOUBLE
    } else if (strcmp(type, "double") == 0) {
        instance->value *= 2;
#endif
    } else if (strcmp(type, "wait") == 0) {
        if (effects && !instance->waiting) {
            instance->waiting = 1;
            instance->host->effect_began();
        }
    } else {
        return fail(instance, FH_ERR_BAD_ACTION, "unknown action type");
    }
    if (out_flags) *out_flags = instance->value != before ? FH_DISPATCH_STATE_CHANGED : 0;
    return FH_OK;
}

static fh_status dispatch(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: not started");
    return apply(instance, action_json, out_flags, 1);
}

static fh_status reduce(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "reduce: stopped");
    return apply(instance, action_json, out_flags, 0);
}

static fh_status snapshot(fh_instance *instance, const char **out_state_json) {
    snprintf(instance->output, sizeof instance->output, "{\"" FIELD "\":%ld}", instance->value);
    *out_state_json = instance->output;
    return FH_OK;
}

static fh_status restore(fh_instance *instance, const char *state_json) {
    long value;
    if (sscanf(state_json, " {\"" FIELD "\":%ld}", &value) != 1) {
        return fail(instance, FH_ERR_BAD_STATE, "the state has no \"" FIELD "\" (a whole number)");
    }
    instance->value = value;
    return FH_OK;
}

static fh_status render(fh_instance *instance, const char **out_view) {
    snprintf(instance->output, sizeof instance->output, "Reloadable " RELOAD_VERSION "\n  " FIELD ": %ld",
             instance->value);
    *out_view = instance->output;
    return FH_OK;
}

static fh_status stop(fh_instance *instance) {
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "stop: not started");
    instance->phase = STOPPED;
    // Stop ends the effect in flight, which never reports its own end.
    instance->waiting = 0;
    return FH_OK;
}

static void destroy(fh_instance *instance) { free(instance); }

static const char *last_error(const fh_instance *instance) { return instance->error; }

static const fh_plugin descriptor = {
    .struct_size = sizeof(fh_plugin),
    .abi_major = FH_ABI_MAJOR,
    .abi_minor = FH_ABI_MINOR,
    .manifest_json = "{\"id\":\"reloadable\",\"name\":\"Reloadable\",\"version\":\"" RELOAD_VERSION "\","
                     "\"description\":\"A counter built in several versions\",\"actions\":["
                     "{\"type\":\"increment\",\"help\":\"Add one\",\"arguments\":[]},"
                     "{\"type\":\"wait\",\"help\":\"Start an effect that only stop ends\",\"arguments\":[]}"
                     DOUBLE_ACTION "]}",
    .create = create,
    .start = start,
    .dispatch = dispatch,
    .reduce = reduce,
    .snapshot = snapshot,
    .restore = restore,
    .render = render,
    .stop = stop,
    .destroy = destroy,
    .last_error = last_error,
    .get_extension = NULL,
};

FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) {
#ifdef RELOAD_CRASH_ON_LOAD
    raise(SIGSEGV);
#endif
#ifdef RELOAD_HANG_ON_LOAD
    for (;;) pause();
#endif
    return &descriptor;
}
