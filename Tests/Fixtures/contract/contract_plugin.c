// The "tally" of ../fixture_plugin.c (built with -DFIXTURE_TALLY), wrapped so it keeps the rules
// feature_abi.h decided in 1.0 (NULL strings, unknown settings, the lifecycle action's order,
// last_error's lifetime) on top of the ones the tally keeps itself. `host validate`'s tests build
// it once per variant (ContractFixture). Every macro of fixture_plugin.c still applies; each
// CONTRACT_BREAK_* macro below breaks one decided rule, so each new check is seen failing alone:
//
//   CONTRACT_BREAK_NULL_ACTION       dispatch dereferences a NULL action (null-arguments)
//   CONTRACT_BREAK_UNKNOWN_SETTING   create accepts settings it does not read (unknown-setting)
//   CONTRACT_BREAK_EXTRA_MEMBER      dispatch drops members it does not know (extra-members)
//   CONTRACT_BREAK_EARLY_ACTION      dispatch takes actions before created, and created twice
//                                    (lifecycle-action)
//   CONTRACT_BREAK_APPLIES_REFUSED   an 'add' refused for its amount is applied anyway
//                                    (refused-arguments)
//   CONTRACT_BREAK_DEEP_RESTORE      restore walks an object recursively and overflows its stack on
//                                    deep nesting (deep-nesting)
//   CONTRACT_BREAK_EMIT_NO_EFFECT    ping's pong comes from a thread that never called effect_began
//                                    (effect-accounting)
//   CONTRACT_BREAK_EMIT_IN_START     start emits (callback-phases)
//   CONTRACT_BREAK_LAST_ERROR        last_error overwrites the string snapshot returned (last-error)
//   CONTRACT_BREAK_UNDECLARED_READ   reset reads /etc/passwd, which its manifest does not declare
//                                    (sandbox; the read fails there and reset goes on)
//
// And two descriptor variants, for list and validate agreeing: CONTRACT_RESERVED (reserved is 1:
// both refuse it) and CONTRACT_NO_HELP (a manifest without help or description: both load it).
#define fh_plugin_entry_v1 tally_plugin_entry_v1
#include "fixture_plugin.c"
#undef fh_plugin_entry_v1

typedef struct {
    fh_instance *tally; // the wrapped instance; NULL when create refused before making it
    const fh_host *host;
    int lifecycle_sent;
    int own_error; // last_error answers error below, not the tally's
    char error[256];
    pthread_t stray;
    int has_stray;
} contract;

static contract *as_contract(const fh_instance *instance) { return (contract *)(void *)instance; }

static fh_status refuse(contract *c, fh_status status, const char *message, const char *value) {
    snprintf(c->error, sizeof c->error, message, value);
    c->own_error = 1;
    return status;
}

// The tally's answer; after a success last_error is "" (the tally does not always clear it).
static fh_status answer(contract *c, fh_status status) {
    c->own_error = status == FH_OK;
    if (status == FH_OK) c->error[0] = '\0';
    return status;
}

static fh_status contract_create(const fh_host *host, const char *config, fh_instance **out) {
    contract *c = calloc(1, sizeof *c);
    *out = (fh_instance *)(void *)c;
    if (!c) return FH_ERR_INTERNAL;
    c->host = host;
    if (!config) return refuse(c, FH_ERR_BAD_CONFIG, "tally: the config JSON is NULL%s", "");
    flat_object object;
    char reason[200];
    if (flat_json_read(config, &object, reason, sizeof reason) < 0) {
        return refuse(c, FH_ERR_BAD_CONFIG, "tally: the config is not a flat JSON object: %s", reason);
    }
#ifndef CONTRACT_BREAK_UNKNOWN_SETTING
    for (int i = 0; i < object.count; i++) {
        const char *key = object.members[i].key;
        if (strcmp(key, "destroy_log") != 0 && strcmp(key, "refuse") != 0) {
            return refuse(c, FH_ERR_BAD_CONFIG, "tally: unknown setting '%s'; tally reads destroy_log, refuse", key);
        }
    }
#endif
    fh_status status = create(host, config, &c->tally);
    if (!c->tally) return refuse(c, FH_ERR_INTERNAL, "tally: out of memory%s", "");
    return answer(c, status);
}

static fh_status contract_start(fh_instance *instance) {
    contract *c = as_contract(instance);
#ifdef CONTRACT_BREAK_EMIT_IN_START
    c->host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
#endif
    return answer(c, start(c->tally));
}

#ifdef CONTRACT_BREAK_EMIT_NO_EFFECT
static void *stray_pong(void *argument) {
    const fh_host *host = argument;
    usleep(20000);
    host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
    return NULL;
}
#endif

static fh_status contract_dispatch(fh_instance *instance, const char *json, uint32_t *flags) {
    contract *c = as_contract(instance);
    if (c->tally->phase != STARTED) return answer(c, dispatch(c->tally, json, flags));
#ifndef CONTRACT_BREAK_NULL_ACTION
    if (!json) return refuse(c, FH_ERR_BAD_ACTION, "tally: the action JSON is NULL%s", "");
#endif
    flat_object action;
    char reason[200];
    const flat_member *type = NULL;
    if (flat_json_read(json, &action, reason, sizeof reason) == 0) type = flat_json_find(&action, "type");
    if (!type || type->kind != FLAT_STRING) return answer(c, dispatch(c->tally, json, flags));
    int lifecycle = strcmp(type->text, "created") == 0 || strcmp(type->text, "restored") == 0;
#ifdef CONTRACT_BREAK_UNDECLARED_READ
    if (strcmp(type->text, "reset") == 0) {
        FILE *undeclared = fopen("/etc/passwd", "r");
        if (undeclared) fclose(undeclared);
    }
#endif
#ifndef CONTRACT_BREAK_EARLY_ACTION
    if (lifecycle == c->lifecycle_sent) {
        return refuse(c, FH_ERR_LIFECYCLE,
                      lifecycle ? "tally: '%s' came after the lifecycle action"
                                : "tally: '%s' came before the lifecycle action",
                      type->text);
    }
#endif
#ifdef CONTRACT_BREAK_EXTRA_MEMBER
    char kept[160];
    const flat_member *amount = flat_json_find(&action, "amount");
    snprintf(kept, sizeof kept, "{\"type\":\"%s\"%s%s}", type->text, amount ? ",\"amount\":" : "",
             amount ? amount->text : "");
    json = kept;
#endif
#ifdef CONTRACT_BREAK_EMIT_NO_EFFECT
    if (strcmp(type->text, "ping") == 0 && action.count == 1) {
        if (!c->has_stray) c->has_stray = pthread_create(&c->stray, NULL, stray_pong, (void *)c->host) == 0;
        if (flags) *flags = 0;
        return answer(c, FH_OK);
    }
#endif
    fh_status status = dispatch(c->tally, json, flags);
#ifdef CONTRACT_BREAK_APPLIES_REFUSED
    const flat_member *refused = flat_json_find(&action, "amount");
    if (status == FH_ERR_BAD_ACTION && strcmp(type->text, "add") == 0 && action.count == 2 && refused && refused->kind == FLAT_INTEGER
        && refused->integer > -1000 && refused->integer < 1000 && (refused->integer < 1 || refused->integer > 9)) {
        c->tally->total += refused->integer;
    }
#endif
    if (status == FH_OK && lifecycle) c->lifecycle_sent = 1;
    return answer(c, status);
}

static fh_status contract_reduce(fh_instance *instance, const char *json, uint32_t *flags) {
    contract *c = as_contract(instance);
    if (!json) return refuse(c, FH_ERR_BAD_ACTION, "tally: the action JSON is NULL%s", "");
    return answer(c, reduce(c->tally, json, flags));
}

static fh_status contract_snapshot(fh_instance *instance, const char **out) {
    contract *c = as_contract(instance);
    return answer(c, snapshot(c->tally, out));
}

#ifdef CONTRACT_BREAK_DEEP_RESTORE
// How deep the text nests, one stack frame per character: the recursive reader the rule is about.
static int naive_depth(const char *text) {
    volatile char frame[64];
    frame[0] = *text;
    if (*text == '\0') return 0;
    int inner = naive_depth(text + 1);
    return (frame[0] == '[' || frame[0] == '{') ? inner + 1 : inner;
}
#endif

static fh_status contract_restore(fh_instance *instance, const char *json) {
    contract *c = as_contract(instance);
    if (c->tally->phase == STOPPED) return answer(c, restore(c->tally, json));
    if (!json) return refuse(c, FH_ERR_BAD_STATE, "tally: the state JSON is NULL%s", "");
#ifdef CONTRACT_BREAK_DEEP_RESTORE
    if (json[0] == '{' && naive_depth(json) > 64) return refuse(c, FH_ERR_BAD_STATE, "tally: too deep%s", "");
#endif
    return answer(c, restore(c->tally, json));
}

static fh_status contract_render(fh_instance *instance, const char **out) {
    contract *c = as_contract(instance);
    return answer(c, render(c->tally, out));
}

#ifdef OFFERS_STRUCTURED_VIEW
static fh_status contract_render_structured(fh_instance *instance, const char **out) {
    contract *c = as_contract(instance);
    return answer(c, render_structured(c->tally, out));
}

static const fh_structured_view contract_structured_view = {
    .struct_size = sizeof(fh_structured_view),
    .render_structured = contract_render_structured,
};

// The tally's fh.structured_view/1 takes the tally's instance: the wrapper's own table unwraps it.
static const void *contract_get_extension(const char *id) {
    if (strcmp(id, FH_EXT_STRUCTURED_VIEW) == 0) return &contract_structured_view;
    return NULL;
}
#endif

static fh_status contract_stop(fh_instance *instance) {
    contract *c = as_contract(instance);
    if (c->has_stray) {
        pthread_join(c->stray, NULL);
        c->has_stray = 0;
    }
    return answer(c, stop(c->tally));
}

static void contract_destroy(fh_instance *instance) {
    contract *c = as_contract(instance);
    if (!c) return;
    if (c->tally && c->tally->phase == STARTED) contract_stop(instance);
    if (c->tally) destroy(c->tally);
    free(c);
}

static const char *contract_last_error(const fh_instance *instance) {
    contract *c = as_contract(instance);
#ifdef CONTRACT_BREAK_LAST_ERROR
    if (c->tally) snprintf(c->tally->output, sizeof c->tally->output, "overwritten by last_error");
#endif
    return c->own_error || !c->tally ? c->error : last_error(c->tally);
}

#ifndef FIXTURE_NO_ENTRY
#define NO_HELP_MANIFEST                                                                                      \
    "{\"id\":\"tally\",\"name\":\"Tally\",\"version\":\"1.0.0\",\"actions\":[{\"type\":\"add\",\"arguments\":" \
    "[{\"name\":\"amount\",\"type\":\"integer\"}]},{\"type\":\"reset\"},{\"type\":\"ping\"}]}"

static fh_plugin wrapped;
static pthread_once_t wrapped_once = PTHREAD_ONCE_INIT;

static void wrap(void) {
    wrapped = *tally_plugin_entry_v1();
    wrapped.create = contract_create;
    wrapped.start = contract_start;
    if (wrapped.dispatch) wrapped.dispatch = contract_dispatch;
    wrapped.reduce = contract_reduce;
    wrapped.snapshot = contract_snapshot;
    wrapped.restore = contract_restore;
    wrapped.render = contract_render;
    wrapped.stop = contract_stop;
    wrapped.destroy = contract_destroy;
    wrapped.last_error = contract_last_error;
#ifdef OFFERS_STRUCTURED_VIEW
    wrapped.get_extension = contract_get_extension;
#endif
#ifdef CONTRACT_RESERVED
    wrapped.reserved = 1;
#endif
#ifdef CONTRACT_NO_HELP
    wrapped.manifest_json = NO_HELP_MANIFEST;
#endif
}

FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void);
FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) {
    if (!tally_plugin_entry_v1()) return NULL;
    pthread_once(&wrapped_once, wrap);
    return &wrapped;
}
#endif
