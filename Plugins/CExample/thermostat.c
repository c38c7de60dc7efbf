/*
 * thermostat.c - an example feature written in C against feature_abi.h alone.
 *
 * A thermostat with a mode (off, heat, cool) and a target temperature. State:
 *   {"mode":"heat","target":21}
 * Actions (the catalogue in MANIFEST): setTarget celsius=<integer>, setMode mode=<string>,
 * warmer, cooler; and the lifecycle actions created and restored, sent by the host.
 * In C everything is written by hand: the catalogue in MANIFEST, the entry point, the defaults.
 * A Swift feature on FeatureKit gets them derived instead (FeatureKit's ActionDecoding build
 * plugin): the catalogue from its Action enum (each case with a `///` comment, that comment's
 * first paragraph the help and its `- Parameter name:` lines the arguments' help), init(config:)
 * and initialState() where it writes none, and the entry record; listing `actions:` in its
 * Manifest, or writing those members, overrides what is derived.
 * Config: {} or {"target": N}, the target a fresh thermostat starts with (default 20).
 *
 * No effects: the reducer is the whole feature, and dispatch and reduce do the same thing, but
 * for the lifecycle rule: dispatch takes created or restored first and once.
 * Bad input is refused, never a crash: a NULL string, a member an action or a state does not
 * have, a setting the config does not know (feature_abi.h, Conventions).
 *
 * Build it by hand from the package root, exporting only fh_plugin_entry_v1 (exports.map):
 *   cc -shared -fPIC -O2 -I Sources/FeatureABI/include
 *      -Wl,--version-script=Plugins/CExample/exports.map
 *      -o libthermostat.so Plugins/CExample/thermostat.c Plugins/CExample/flat_json.c
 * (README.md writes the file list as a glob; `make -C Plugins/CExample` does the same.)
 * SwiftPM builds the same files as the product CExample (libCExample.so). Every function here
 * but the entry is static, and flat_json's are hidden, so both builds export only the entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature_abi.h"
#include "flat_json.h"

enum { MIN_TARGET = 5, MAX_TARGET = 35, DEFAULT_TARGET = 20 };

typedef enum { MODE_OFF, MODE_HEAT, MODE_COOL } thermostat_mode;

static const char *const mode_names[] = {"off", "heat", "cool"};

typedef struct {
    thermostat_mode mode;
    int target;
} thermostat_state;

typedef enum { PHASE_BROKEN, PHASE_CREATED, PHASE_STARTED, PHASE_STOPPED } phase;

struct fh_instance {
    phase phase;
    int lifecycle_sent; /* dispatch has taken created or restored: it comes first, and once */
    int initial_target;
    thermostat_state state;
    char output[256]; /* the last snapshot or view; owned by the instance, as the ABI says */
    char error[256];  /* what last_error returns: "" after a call that succeeded */
};

/* ---- The feature: pure functions of the state ------------------------------------------- */

static int parse_mode(const char *name, thermostat_mode *mode) {
    for (int i = 0; i < 3; i++) {
        if (strcmp(name, mode_names[i]) == 0) {
            *mode = (thermostat_mode)i;
            return 0;
        }
    }
    return -1;
}

static int target_in_range(long long celsius) { return celsius >= MIN_TARGET && celsius <= MAX_TARGET; }

static void write_state(const thermostat_state *state, char *out, size_t size) {
    /* Keys in sorted order, no spaces: the same state always gives the same bytes. */
    snprintf(out, size, "{\"mode\":\"%s\",\"target\":%d}", mode_names[state->mode], state->target);
}

static void write_view(const thermostat_state *state, char *out, size_t size) {
    const char *doing = state->mode == MODE_HEAT ? "heating to" : state->mode == MODE_COOL ? "cooling to" : NULL;
    char headline[64];
    if (doing) {
        snprintf(headline, sizeof headline, "Thermostat \xE2\x80\x94 %s %d \xC2\xB0" "C", doing, state->target);
    } else {
        snprintf(headline, sizeof headline, "Thermostat \xE2\x80\x94 off");
    }
    snprintf(out, size, "%s\n  mode:   %s\n  target: %d \xC2\xB0" "C", headline, mode_names[state->mode],
             state->target);
}

/* ---- The ABI glue ------------------------------------------------------------------------ */

static fh_status fail(fh_instance *instance, fh_status status, const char *format, const char *value) {
    snprintf(instance->error, sizeof instance->error, format, value);
    return status;
}

static fh_status succeed(fh_instance *instance) {
    instance->error[0] = '\0';
    return FH_OK;
}

static fh_status lifecycle_error(fh_instance *instance, const char *call) {
    static const char *const names[] = {"broken", "created", "started", "stopped"};
    snprintf(instance->error, sizeof instance->error, "thermostat: %s is not allowed on an instance that is %s",
             call, names[instance->phase]);
    return FH_ERR_LIFECYCLE;
}

/* Checks that object has no member other than "type" and the names in allowed (NULL-ended). */
static fh_status refuse_unknown_members(fh_instance *instance, const flat_object *object, const char *type,
                                        const char *const *allowed) {
    for (int i = 0; i < object->count; i++) {
        const char *key = object->members[i].key;
        int known = strcmp(key, "type") == 0;
        for (const char *const *name = allowed; *name && !known; name++) known = strcmp(key, *name) == 0;
        if (!known) {
            char quoted[FLAT_MAX_KEY * 2];
            char message[160];
            snprintf(message, sizeof message, "thermostat: '%s' has no argument %s", type,
                     flat_json_quote(key, quoted, sizeof quoted));
            return fail(instance, FH_ERR_BAD_ACTION, "%s", message);
        }
    }
    return FH_OK;
}

/* The reducer: applies action_json to the state, or refuses it and leaves the state as it was. */
static fh_status apply(fh_instance *instance, const char *action_json, uint32_t *out_flags, int dispatching) {
    flat_object action;
    char reason[200];
    if (!action_json) return fail(instance, FH_ERR_BAD_ACTION, "%s", "thermostat: the action JSON is NULL");
    if (flat_json_read(action_json, &action, reason, sizeof reason) < 0) {
        return fail(instance, FH_ERR_BAD_ACTION, "thermostat: the action is not a flat JSON object: %s", reason);
    }
    const flat_member *type = flat_json_find(&action, "type");
    if (!type || type->kind != FLAT_STRING) {
        return fail(instance, FH_ERR_BAD_ACTION, "%s", "thermostat: the action has no string \"type\"");
    }
    /* dispatch takes the lifecycle action first and once; reduce (a replay) takes any order. */
    int lifecycle = strcmp(type->text, "created") == 0 || strcmp(type->text, "restored") == 0;
    if (dispatching && lifecycle == instance->lifecycle_sent) {
        char quoted[FLAT_MAX_TEXT * 2];
        return fail(instance, FH_ERR_LIFECYCLE,
                    lifecycle ? "thermostat: %s came after the lifecycle action; an instance takes one"
                              : "thermostat: %s came before the lifecycle action (created or restored)",
                    flat_json_quote(type->text, quoted, sizeof quoted));
    }
    thermostat_state next = instance->state;
    static const char *const no_arguments[] = {NULL};
    static const char *const celsius_argument[] = {"celsius", NULL};
    static const char *const mode_argument[] = {"mode", NULL};
    const char *const *allowed = no_arguments;
    if (strcmp(type->text, "created") == 0) {
        next.mode = MODE_OFF;
        next.target = instance->initial_target;
    } else if (strcmp(type->text, "restored") == 0) {
        /* The state came with the snapshot; nothing to redo. */
    } else if (strcmp(type->text, "setTarget") == 0) {
        allowed = celsius_argument;
        const flat_member *celsius = flat_json_find(&action, "celsius");
        if (!celsius || celsius->kind != FLAT_INTEGER || !target_in_range(celsius->integer)) {
            return fail(instance, FH_ERR_BAD_ACTION, "%s",
                        "thermostat: 'setTarget' needs celsius=<integer> from 5 to 35");
        }
        next.target = (int)celsius->integer;
    } else if (strcmp(type->text, "setMode") == 0) {
        allowed = mode_argument;
        const flat_member *mode = flat_json_find(&action, "mode");
        if (!mode || mode->kind != FLAT_STRING || parse_mode(mode->text, &next.mode) < 0) {
            char quoted[FLAT_MAX_TEXT * 2];
            return fail(instance, FH_ERR_BAD_ACTION, "thermostat: 'setMode' needs mode=off, heat or cool, got %s",
                        mode && mode->kind == FLAT_STRING ? flat_json_quote(mode->text, quoted, sizeof quoted)
                                                          : "no string");
        }
    } else if (strcmp(type->text, "warmer") == 0) {
        if (next.target < MAX_TARGET) next.target++;
    } else if (strcmp(type->text, "cooler") == 0) {
        if (next.target > MIN_TARGET) next.target--;
    } else {
        char quoted[FLAT_MAX_TEXT * 2];
        return fail(instance, FH_ERR_BAD_ACTION,
                    "thermostat: unknown action type %s; actions: setTarget, setMode, warmer, cooler",
                    flat_json_quote(type->text, quoted, sizeof quoted));
    }
    fh_status status = refuse_unknown_members(instance, &action, type->text, allowed);
    if (status != FH_OK) return status;
    if (out_flags) {
        int changed = next.mode != instance->state.mode || next.target != instance->state.target;
        *out_flags = changed ? FH_DISPATCH_STATE_CHANGED : 0;
    }
    instance->state = next;
    if (dispatching && lifecycle) instance->lifecycle_sent = 1;
    return succeed(instance);
}

static fh_status thermostat_create(const fh_host *host, const char *config_json, fh_instance **out_instance) {
    (void)host; /* no effects, so no callbacks to make */
    fh_instance *instance = calloc(1, sizeof *instance);
    *out_instance = instance;
    if (!instance) return FH_ERR_INTERNAL;
    flat_object config;
    char reason[200];
    if (!config_json) return fail(instance, FH_ERR_BAD_CONFIG, "%s", "thermostat: the config JSON is NULL; pass {}");
    if (flat_json_read(config_json, &config, reason, sizeof reason) < 0) {
        return fail(instance, FH_ERR_BAD_CONFIG, "thermostat: the config is not a flat JSON object: %s", reason);
    }
    instance->initial_target = DEFAULT_TARGET;
    for (int i = 0; i < config.count; i++) {
        const flat_member *setting = &config.members[i];
        if (strcmp(setting->key, "target") != 0) {
            char quoted[FLAT_MAX_KEY * 2];
            return fail(instance, FH_ERR_BAD_CONFIG, "thermostat: unknown config %s; thermostat reads target",
                        flat_json_quote(setting->key, quoted, sizeof quoted));
        }
        if (setting->kind != FLAT_INTEGER || !target_in_range(setting->integer)) {
            return fail(instance, FH_ERR_BAD_CONFIG, "%s", "thermostat: config target must be an integer from 5 to 35");
        }
        instance->initial_target = (int)setting->integer;
    }
    instance->state.target = instance->initial_target;
    instance->phase = PHASE_CREATED;
    return succeed(instance);
}

static fh_status thermostat_start(fh_instance *instance) {
    if (instance->phase != PHASE_CREATED) return lifecycle_error(instance, "start");
    instance->phase = PHASE_STARTED;
    return succeed(instance);
}

static fh_status thermostat_dispatch(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
    if (instance->phase != PHASE_STARTED) return lifecycle_error(instance, "dispatch");
    return apply(instance, action_json, out_flags, 1);
}

static fh_status thermostat_reduce(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
    if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
        return lifecycle_error(instance, "reduce");
    }
    return apply(instance, action_json, out_flags, 0);
}

static fh_status thermostat_snapshot(fh_instance *instance, const char **out_state_json) {
    if (instance->phase == PHASE_BROKEN) return lifecycle_error(instance, "snapshot");
    write_state(&instance->state, instance->output, sizeof instance->output);
    *out_state_json = instance->output;
    return succeed(instance);
}

static fh_status thermostat_restore(fh_instance *instance, const char *state_json) {
    if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
        return lifecycle_error(instance, "restore");
    }
    flat_object object;
    char reason[200];
    if (!state_json) return fail(instance, FH_ERR_BAD_STATE, "%s", "thermostat: the state JSON is NULL");
    if (flat_json_read(state_json, &object, reason, sizeof reason) < 0) {
        return fail(instance, FH_ERR_BAD_STATE, "thermostat: the state is not a flat JSON object: %s", reason);
    }
    const flat_member *mode = flat_json_find(&object, "mode");
    const flat_member *target = flat_json_find(&object, "target");
    thermostat_state restored;
    if (object.count != 2 || !mode || !target) {
        return fail(instance, FH_ERR_BAD_STATE, "%s", "thermostat: a state has exactly the members mode and target");
    }
    if (mode->kind != FLAT_STRING || parse_mode(mode->text, &restored.mode) < 0) {
        return fail(instance, FH_ERR_BAD_STATE, "%s", "thermostat: state mode must be off, heat or cool");
    }
    if (target->kind != FLAT_INTEGER || !target_in_range(target->integer)) {
        return fail(instance, FH_ERR_BAD_STATE, "%s", "thermostat: state target must be an integer from 5 to 35");
    }
    restored.target = (int)target->integer;
    instance->state = restored;
    return succeed(instance);
}

static fh_status thermostat_render(fh_instance *instance, const char **out_view) {
    if (instance->phase == PHASE_BROKEN) return lifecycle_error(instance, "render");
    write_view(&instance->state, instance->output, sizeof instance->output);
    *out_view = instance->output;
    return succeed(instance);
}

static fh_status thermostat_stop(fh_instance *instance) {
    if (instance->phase != PHASE_STARTED) return lifecycle_error(instance, "stop");
    instance->phase = PHASE_STOPPED;
    return succeed(instance);
}

static void thermostat_destroy(fh_instance *instance) { free(instance); }

static const char *thermostat_last_error(const fh_instance *instance) { return instance->error; }

/* The manifest (feature_abi.h, manifest_json). It has no "needs": the thermostat only computes, so
 * its worker needs no port and no file. A feature that did would list them, e.g.
 * "needs":{"connect":[443],"read":["/usr/share/zoneinfo"]}. */
#define MANIFEST                                                                                                  \
    "{\"id\":\"thermostat\",\"name\":\"Thermostat\",\"version\":\"1.0.0\","                                      \
    "\"description\":\"A thermostat written in C against feature_abi.h alone: a mode and a target temperature. " \
    "Config: target (the starting target, 5 to 35, default 20).\","                                               \
    "\"actions\":["                                                                                               \
    "{\"type\":\"setTarget\",\"help\":\"Aim for this temperature.\",\"arguments\":[{\"name\":\"celsius\","        \
    "\"type\":\"integer\",\"help\":\"degrees Celsius, 5 to 35\",\"required\":true}]},"                            \
    "{\"type\":\"setMode\",\"help\":\"Switch the thermostat off, or to heating or cooling.\",\"arguments\":["     \
    "{\"name\":\"mode\",\"type\":\"string\",\"help\":\"off, heat or cool\",\"required\":true}]},"                 \
    "{\"type\":\"warmer\",\"help\":\"Raise the target by one degree (up to 35).\"},"                              \
    "{\"type\":\"cooler\",\"help\":\"Lower the target by one degree (down to 5).\"}]}"

static const fh_plugin descriptor = {
    .struct_size = sizeof(fh_plugin),
    .abi_major = FH_ABI_MAJOR,
    .abi_minor = 1, /* keeps the rules of ABI 1.1 (feature_abi.h's ChangeLog) */
    .reserved = 0,
    .manifest_json = MANIFEST,
    .create = thermostat_create,
    .start = thermostat_start,
    .dispatch = thermostat_dispatch,
    .reduce = thermostat_reduce,
    .snapshot = thermostat_snapshot,
    .restore = thermostat_restore,
    .render = thermostat_render,
    .stop = thermostat_stop,
    .destroy = thermostat_destroy,
    .last_error = thermostat_last_error,
    .get_extension = NULL,
};

FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) { return &descriptor; }
