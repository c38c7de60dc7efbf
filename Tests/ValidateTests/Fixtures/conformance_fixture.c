// A small plugin for the validator's tests, built by them with cc once per variant. The plain
// build keeps every rule of feature_abi.h; each BREAK_* macro breaks one rule, so each check of
// `host validate` can be seen failing alone (RESET_NEEDS_A_TOTAL breaks none). It reads JSON
// with the C example's flat_json.c.
//
// Feature "tally": state {"pongs": n, "total": n}. Actions: add amount=<integer 1 to 9>, reset,
// ping (an effect: a thread emits {"type":"pong"}, which counts in pongs).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feature_abi.h"
#include "flat_json.h"

#define MAX_EFFECTS 64

typedef enum { CREATED, STARTED, STOPPED } phase;

struct fh_instance {
    const fh_host *host;
    phase phase;
    long total, pongs, serial;
    int restored;
    pthread_t effects[MAX_EFFECTS];
    int effect_count;
    char output[256];
    char error[256];
};

#ifdef BREAK_NONDETERMINISTIC
// Shared by every instance, so a second instance numbers its states differently.
static long calls;
#endif

static fh_status fail(fh_instance *instance, fh_status status, const char *message) {
    snprintf(instance->error, sizeof instance->error, "tally: %s", message);
    return status;
}

static fh_status refuse_action(fh_instance *instance, const char *message) {
#ifdef BREAK_SILENT_REFUSAL
    (void)message;
    instance->error[0] = '\0';
    return FH_ERR_BAD_ACTION;
#else
    return fail(instance, FH_ERR_BAD_ACTION, message);
#endif
}

static void *ping_effect(void *argument) {
    const fh_host *host = argument;
    usleep(1000);
    host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
    host->effect_ended();
    return NULL;
}

#ifdef BREAK_EMIT_AFTER_STOP
static void *late_effect(void *argument) {
    const fh_host *host = argument;
    usleep(20000);
    host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
    return NULL;
}
#endif

static fh_status apply(fh_instance *instance, const char *json, uint32_t *flags, int effects) {
    flat_object action;
    char reason[200];
    if (flat_json_read(json, &action, reason, sizeof reason) < 0) {
#ifdef BREAK_CRASH_ON_MALFORMED
        *(volatile int *)0 = 1;
#endif
#ifdef BREAK_HANG_ON_EMPTY
        if (json[0] == '\0') for (;;) pause();
#endif
#ifdef BREAK_ACCEPT_EVERYTHING
        return FH_OK;
#endif
        return refuse_action(instance, reason);
    }
    const flat_member *type = flat_json_find(&action, "type");
    if (!type || type->kind != FLAT_STRING) return refuse_action(instance, "the action has no string type");
    const flat_member *amount = flat_json_find(&action, "amount");
    int arguments = amount ? 2 : 1;
    long total = instance->total, pongs = instance->pongs;
    if (strcmp(type->text, "created") == 0) {
        total = pongs = 0;
    } else if (strcmp(type->text, "restored") == 0) {
    } else if (strcmp(type->text, "add") == 0) {
        if (!amount || amount->kind != FLAT_INTEGER || amount->integer < 1 || amount->integer > 9) {
            return refuse_action(instance, "add needs amount=<integer from 1 to 9>");
        }
        total += amount->integer;
    } else if (strcmp(type->text, "reset") == 0) {
#ifdef BREAK_REFUSE_RESET
        return refuse_action(instance, "reset is broken in this build");
#endif
#ifdef RESET_NEEDS_A_TOTAL
        // Not a breach: an action refused in some states is fine if some state accepts it.
        if (total == 0) return refuse_action(instance, "nothing to reset");
#endif
        total = 0;
    } else if (strcmp(type->text, "ping") == 0) {
    } else if (strcmp(type->text, "pong") == 0) {
#ifdef BREAK_REFUSE_EMITTED
        return refuse_action(instance, "pong is refused in this build");
#endif
        pongs++;
    } else {
#if defined(BREAK_ACCEPT_EVERYTHING)
        return FH_OK;
#elif defined(BREAK_BAD_ACTION_CHANGES_STATE)
        instance->total += 100;
#endif
        return refuse_action(instance, "unknown action type");
    }
    if (action.count != arguments) return refuse_action(instance, "unknown argument");
    if (effects && strcmp(type->text, "ping") == 0 && instance->effect_count < MAX_EFFECTS) {
        instance->host->effect_began();
        pthread_create(&instance->effects[instance->effect_count++], NULL, ping_effect, (void *)instance->host);
    }
#ifdef BREAK_NONDETERMINISTIC
    instance->serial = ++calls;
#endif
    if (flags) *flags = total != instance->total || pongs != instance->pongs ? FH_DISPATCH_STATE_CHANGED : 0;
    instance->total = total;
    instance->pongs = pongs;
    instance->error[0] = '\0';
    return FH_OK;
}

static fh_status create(const fh_host *host, const char *config, fh_instance **out) {
    (void)config;
    fh_instance *instance = calloc(1, sizeof *instance);
    *out = instance;
    if (!instance) return FH_ERR_INTERNAL;
    instance->host = host;
    return FH_OK;
}

static fh_status start(fh_instance *instance) {
    if (instance->phase != CREATED) return fail(instance, FH_ERR_LIFECYCLE, "start: not a fresh instance");
    instance->phase = STARTED;
    return FH_OK;
}

static fh_status dispatch(fh_instance *instance, const char *json, uint32_t *flags) {
#ifdef BREAK_DISPATCH_BEFORE_START
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: stopped");
#else
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: not started");
#endif
    return apply(instance, json, flags, 1);
}

static fh_status reduce(fh_instance *instance, const char *json, uint32_t *flags) {
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "reduce: stopped");
    return apply(instance, json, flags, 0);
}

static fh_status snapshot(fh_instance *instance, const char **out) {
#ifdef BREAK_NONDETERMINISTIC
    snprintf(instance->output, sizeof instance->output, "{\"pongs\":%ld,\"serial\":%ld,\"total\":%ld}",
             instance->pongs, instance->serial, instance->total);
#else
#ifdef BREAK_RESTORE_NOT_IDENTICAL
    const char *format = instance->restored ? "{\"pongs\": %ld,\"total\": %ld}" : "{\"pongs\":%ld,\"total\":%ld}";
#else
    const char *format = "{\"pongs\":%ld,\"total\":%ld}";
#endif
    snprintf(instance->output, sizeof instance->output, format, instance->pongs, instance->total);
#endif
    *out = instance->output;
    return FH_OK;
}

static fh_status restore(fh_instance *instance, const char *json) {
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "restore: stopped");
    flat_object state;
    char reason[200];
    const flat_member *total = NULL, *pongs = NULL, *serial = NULL;
    int members = 2;
    if (flat_json_read(json, &state, reason, sizeof reason) == 0) {
        total = flat_json_find(&state, "total");
        pongs = flat_json_find(&state, "pongs");
#ifdef BREAK_NONDETERMINISTIC
        serial = flat_json_find(&state, "serial");
        members = serial ? 3 : 0;
#endif
    }
    int valid = total && pongs && state.count == members && total->kind == FLAT_INTEGER && pongs->kind == FLAT_INTEGER
                && total->integer >= 0 && pongs->integer >= 0 && (!serial || serial->kind == FLAT_INTEGER);
    if (!valid) {
#ifdef BREAK_RESTORE_ACCEPTS_GARBAGE
        return FH_OK;
#endif
        return fail(instance, FH_ERR_BAD_STATE, "a state is {\"pongs\": n, \"total\": n}");
    }
    instance->total = total->integer;
    instance->pongs = pongs->integer;
    if (serial) instance->serial = serial->integer;
    instance->restored = 1;
    return FH_OK;
}

static fh_status render(fh_instance *instance, const char **out) {
#ifdef BREAK_RENDER_ESCAPES
    const char *title = "\x1b[1mTally\x1b[0m";
#else
    const char *title = "Tally";
#endif
    snprintf(instance->output, sizeof instance->output, "%s\n  total: %ld\n  pongs: %ld", title, instance->total,
             instance->pongs);
    *out = instance->output;
    return FH_OK;
}

static fh_status stop(fh_instance *instance) {
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "stop: not started");
    for (int i = 0; i < instance->effect_count; i++) pthread_join(instance->effects[i], NULL);
    instance->effect_count = 0;
    instance->phase = STOPPED;
#ifdef BREAK_EMIT_AFTER_STOP
    pthread_t late;
    pthread_create(&late, NULL, late_effect, (void *)instance->host);
    pthread_detach(late);
#endif
    return FH_OK;
}

static void destroy(fh_instance *instance) {
    if (!instance) return;
    if (instance->phase == STARTED) stop(instance);
    free(instance);
}

static const char *last_error(const fh_instance *instance) { return instance->error; }

#ifdef BREAK_EMPTY_NAME
#define NAME ""
#else
#define NAME "Tally"
#endif

static const fh_plugin descriptor = {
    .struct_size = sizeof(fh_plugin),
#ifdef BREAK_WRONG_MAJOR
    .abi_major = FH_ABI_MAJOR + 1,
#else
    .abi_major = FH_ABI_MAJOR,
#endif
    .abi_minor = FH_ABI_MINOR,
    .manifest_json = "{\"id\":\"tally\",\"name\":\"" NAME "\",\"version\":\"1.0.0\",\"description\":\"Counts.\","
                     "\"actions\":[{\"type\":\"add\",\"help\":\"Add to the total.\",\"arguments\":[{\"name\":"
                     "\"amount\",\"type\":\"integer\",\"help\":\"how much, 1 to 9\"}]},"
                     "{\"type\":\"reset\",\"help\":\"Start again from 0.\"},"
                     "{\"type\":\"ping\",\"help\":\"Start an effect that answers pong.\"}]}",
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
};

#ifdef BREAK_NO_ENTRY
FH_EXPORT const fh_plugin *fh_plugin_entry(void) { return &descriptor; }
#else
FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) { return &descriptor; }
#endif
