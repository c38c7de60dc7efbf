/*
 * contract_client.c - a second client of the plugin ABI, written in C against feature_abi.h alone.
 *
 * It loads one plugin file with dlopen and checks the header's rules one by one, as an outsider
 * would, without any of the host's code: the contract is tested from outside the host.
 *
 *   contract_client PLUGIN.so [CONFIG_JSON]
 *
 * Prints one line per rule, "ok N - RULE" or "not ok N - RULE: WHY" (TAP), then "1..N";
 * exits 0 when every rule holds, 1 otherwise, 2 when the plugin cannot be opened at all.
 * One instance is alive at a time, so the host callbacks can record into globals.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature_abi.h"

/* ---- Reporting ---- */

static int rules, broken;

static void rule(int holds, const char *name, const char *format, ...) {
    rules++;
    if (holds) {
        printf("ok %d - %s\n", rules, name);
        return;
    }
    broken++;
    char why[512];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(why, sizeof why, format, arguments);
    va_end(arguments);
    printf("not ok %d - %s: %s\n", rules, name, why);
}

/* ---- The host callbacks: what the plugin did, and when ---- */

enum phase { IN_CREATE, BEFORE_START, IN_START, RUNNING, STOPPED };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static enum phase phase;
static pthread_t dispatching; /* the thread inside dispatch, when dispatch_active */
static int dispatch_active;
static int in_flight, early_calls, late_calls, unaccounted, bad_origins;

static void on_emit(const char *action_json, fh_origin origin) {
    (void)action_json;
    pthread_mutex_lock(&lock);
    if (phase == STOPPED) late_calls++;
    else if (phase != RUNNING) early_calls++;
    else if (in_flight == 0 && !(dispatch_active && pthread_equal(dispatching, pthread_self()))) unaccounted++;
    if (origin != FH_ORIGIN_EFFECT && origin != FH_ORIGIN_FEEDBACK) bad_origins++;
    pthread_mutex_unlock(&lock);
}

static void on_log(fh_log_level level, const char *message) {
    (void)level;
    (void)message;
    pthread_mutex_lock(&lock);
    if (phase == STOPPED) late_calls++;
    pthread_mutex_unlock(&lock);
}

static void on_effect_began(void) {
    pthread_mutex_lock(&lock);
    if (phase == STOPPED) late_calls++;
    else if (phase != RUNNING) early_calls++;
    in_flight++;
    pthread_mutex_unlock(&lock);
}

static void on_effect_ended(void) {
    pthread_mutex_lock(&lock);
    if (phase == STOPPED) late_calls++;
    else if (in_flight == 0) unaccounted++;
    else in_flight--;
    pthread_mutex_unlock(&lock);
}

static const void *on_get_extension(const char *id) {
    (void)id;
    return NULL; /* this client offers no extension: a feature must work without them */
}

static const fh_host host = {
    .struct_size = sizeof(fh_host),
    .abi_major = FH_ABI_MAJOR,
    .abi_minor = FH_ABI_MINOR,
    .reserved = 0,
    .host_version = "contract-client",
    .emit = on_emit,
    .log = on_log,
    .effect_began = on_effect_began,
    .effect_ended = on_effect_ended,
    .get_extension = on_get_extension,
};

static void enter(enum phase next) {
    pthread_mutex_lock(&lock);
    phase = next;
    pthread_mutex_unlock(&lock);
}

/* ---- Calls ---- */

static const fh_plugin *plugin;

static fh_status dispatch(fh_instance *instance, const char *json) {
    uint32_t flags = 0;
    pthread_mutex_lock(&lock);
    dispatching = pthread_self();
    dispatch_active = 1;
    pthread_mutex_unlock(&lock);
    fh_status status = plugin->dispatch(instance, json, &flags);
    pthread_mutex_lock(&lock);
    dispatch_active = 0;
    pthread_mutex_unlock(&lock);
    return status;
}

/* A copy of the current state (the plugin's string lives only until the next call). */
static char *state_of(fh_instance *instance) {
    const char *text = NULL;
    if (plugin->snapshot(instance, &text) != FH_OK || !text) return strdup("<no snapshot>");
    return strdup(text);
}

static const char *error_of(fh_instance *instance) {
    const char *text = plugin->last_error(instance);
    return text ? text : "";
}

/* A refusal with `want`, a message, and the state as it was. */
static void refused(fh_instance *instance, fh_status status, fh_status want, const char *before, const char *name) {
    char *message = strdup(error_of(instance)); /* before the snapshot below, which clears it */
    char *after = state_of(instance);
    rule(status == want && message[0] && strcmp(before, after) == 0, name,
         "status %d (want %d), last_error '%s', state '%s' -> '%s'", status, want, message, before, after);
    free(after);
    free(message);
}

/* The first catalogued action type of the manifest, found by text: "actions":[{"type":"X". */
static void first_action(const char *manifest, char *out, size_t size) {
    out[0] = '\0';
    const char *actions = strstr(manifest, "\"actions\"");
    const char *type = actions ? strstr(actions, "\"type\"") : NULL;
    const char *open = type ? strchr(type + 6, '"') : NULL;
    const char *close = open ? strchr(open + 1, '"') : NULL;
    if (close && (size_t)(close - open - 1) < size) {
        memcpy(out, open + 1, (size_t)(close - open - 1));
        out[close - open - 1] = '\0';
    }
}

/* `config` with one more setting, "zz_unknown_setting": 1. */
static void with_unknown_setting(const char *config, char *out, size_t size) {
    const char *rest = strchr(config, '{');
    rest = rest ? rest + 1 : "}";
    while (*rest == ' ') rest++;
    snprintf(out, size, "{\"zz_unknown_setting\":1%s%s", *rest == '}' ? "" : ",", rest);
}

static int plain_text(const char *view) {
    for (const unsigned char *c = (const unsigned char *)view; *c; c++) {
        if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7F) return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: contract_client PLUGIN.so [CONFIG_JSON]\n");
        return 2;
    }
    const char *config = argc > 2 ? argv[2] : "{}";
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!library) {
        fprintf(stderr, "cannot open %s: %s\n", argv[1], dlerror());
        return 2;
    }

    /* The entry and the descriptor. */
    fh_plugin_entry_v1_fn entry = (fh_plugin_entry_v1_fn)dlsym(library, FH_ENTRY_SYMBOL);
    rule(entry != NULL, "the entry symbol is exported", "no %s", FH_ENTRY_SYMBOL);
    if (!entry) return 1;
    plugin = entry();
    rule(plugin && entry() == plugin, "the entry returns one static descriptor", "NULL or a different pointer");
    if (!plugin) return 1;
    rule(fh_abi_is_compatible(plugin->abi_major, plugin->abi_minor), "the ABI version is compatible", "%u.%u",
         plugin->abi_major, plugin->abi_minor);
    rule(plugin->struct_size >= sizeof(fh_plugin), "struct_size reaches every field this header knows", "%u",
         plugin->struct_size);
    rule(plugin->reserved == 0, "reserved is zero", "%u", plugin->reserved);
    int complete = plugin->manifest_json && plugin->create && plugin->start && plugin->dispatch && plugin->reduce
                   && plugin->snapshot && plugin->restore && plugin->render && plugin->stop && plugin->destroy
                   && plugin->last_error;
    rule(complete, "every required field is set", "a required field is NULL");
    if (!complete) return 1;
    const char *manifest = plugin->manifest_json;
    rule(manifest[0] == '{' && strstr(manifest, "\"id\"") && strstr(manifest, "\"name\"")
             && strstr(manifest, "\"version\"") && strstr(manifest, "\"actions\""),
         "the manifest has id, name, version and actions", "%.80s", manifest);
    char action_type[64];
    first_action(manifest, action_type, sizeof action_type);

    /* create: NULL and unknown settings refused; callbacks only log. */
    fh_instance *instance = NULL;
    enter(IN_CREATE);
    fh_status status = plugin->create(&host, NULL, &instance);
    rule(status == FH_ERR_BAD_CONFIG && instance && error_of(instance)[0], "create refuses a NULL config",
         "status %d, last_error '%s'", status, instance ? error_of(instance) : "(no instance)");
    plugin->destroy(instance);
    char unknown[1024];
    with_unknown_setting(config, unknown, sizeof unknown);
    instance = NULL;
    status = plugin->create(&host, unknown, &instance);
    rule(status == FH_ERR_BAD_CONFIG && instance && strstr(error_of(instance), "zz_unknown_setting"),
         "create refuses an unknown setting, naming it", "status %d, last_error '%s'", status,
         instance ? error_of(instance) : "(no instance)");
    plugin->destroy(instance);
    instance = NULL;
    status = plugin->create(&host, config, &instance);
    rule(status == FH_OK && instance && error_of(instance)[0] == '\0', "create takes the config", "status %d: %s",
         status, instance ? error_of(instance) : "(no instance)");
    if (status != FH_OK || !instance) return 1;
    enter(BEFORE_START);

    /* Before start. */
    const char *text = NULL;
    rule(plugin->snapshot(instance, &text) == FH_OK && text && text[0] == '{', "snapshot works before start",
         "%s", error_of(instance));
    char *fresh = state_of(instance);
    char action[128];
    snprintf(action, sizeof action, "{\"type\":\"%s\"}", action_type);
    refused(instance, dispatch(instance, action), FH_ERR_LIFECYCLE, fresh, "dispatch before start is refused");

    enter(IN_START);
    status = plugin->start(instance);
    enter(RUNNING);
    rule(status == FH_OK && error_of(instance)[0] == '\0', "start succeeds, and last_error is then \"\"", "%d %s",
         status, error_of(instance));
    refused(instance, plugin->start(instance), FH_ERR_LIFECYCLE, fresh, "start twice is refused");
    pthread_mutex_lock(&lock);
    int early = early_calls;
    pthread_mutex_unlock(&lock);
    rule(early == 0, "nothing but log is called back before start returns", "%d callbacks", early);

    /* The lifecycle action: first, and once. */
    refused(instance, dispatch(instance, action), FH_ERR_LIFECYCLE, fresh,
            "a catalogued action before the lifecycle action is refused");
    rule(dispatch(instance, "{\"type\":\"created\"}") == FH_OK, "created is accepted first", "%s",
         error_of(instance));
    char *created = state_of(instance);
    refused(instance, dispatch(instance, "{\"type\":\"created\"}"), FH_ERR_LIFECYCLE, created,
            "a second created is refused");
    refused(instance, dispatch(instance, "{\"type\":\"restored\"}"), FH_ERR_LIFECYCLE, created,
            "restored after created is refused");

    /* Bad input: refused with a message, the state unchanged, never a crash. */
    uint32_t flags = 0;
    refused(instance, dispatch(instance, NULL), FH_ERR_BAD_ACTION, created, "dispatch refuses a NULL action");
    refused(instance, plugin->reduce(instance, NULL, &flags), FH_ERR_BAD_ACTION, created,
            "reduce refuses a NULL action");
    refused(instance, plugin->restore(instance, NULL), FH_ERR_BAD_STATE, created, "restore refuses a NULL state");
    refused(instance, dispatch(instance, "{\"type\":"), FH_ERR_BAD_ACTION, created,
            "dispatch refuses malformed JSON");
    refused(instance, dispatch(instance, "{\"type\":\"zz-not-an-action\"}"), FH_ERR_BAD_ACTION, created,
            "dispatch refuses an unknown type");
    char extra[256];
    snprintf(extra, sizeof extra, "%.*s,\"zz_extra\":1}", (int)strlen(created) - 1, created);
    refused(instance, plugin->restore(instance, extra), FH_ERR_BAD_STATE, created,
            "restore refuses a member the state does not have");
    enum { DEPTH = 200000 };
    char *deep = malloc(2 * DEPTH + 16);
    strcpy(deep, "{\"a\":");
    memset(deep + 5, '[', DEPTH);
    memset(deep + 5 + DEPTH, ']', DEPTH);
    strcpy(deep + 5 + 2 * DEPTH, "}");
    refused(instance, plugin->restore(instance, deep), FH_ERR_BAD_STATE, created,
            "restore refuses a deeply nested state without crashing");
    free(deep);

    /* last_error: twice the same, and it leaves the string before it intact. */
    dispatch(instance, "{\"type\":\"zz-not-an-action\"}");
    char *first_error = strdup(error_of(instance));
    rule(strcmp(first_error, error_of(instance)) == 0, "last_error twice gives the same text", "'%s'",
         first_error);
    free(first_error);
    text = NULL;
    plugin->snapshot(instance, &text);
    char *kept = strdup(text ? text : "");
    const char *error = error_of(instance);
    rule(error[0] == '\0' && text && strcmp(kept, text) == 0,
         "after a snapshot last_error is \"\" and leaves the snapshot intact", "'%s', '%s'", error,
         text ? text : "(NULL)");
    free(kept);

    /* State round trip, and the view. */
    char *before = state_of(instance);
    rule(plugin->restore(instance, before) == FH_OK, "restore takes the plugin's own snapshot", "%s",
         error_of(instance));
    char *after = state_of(instance);
    rule(strcmp(before, after) == 0, "snapshot -> restore -> snapshot gives the same bytes", "'%s' -> '%s'", before,
         after);
    free(before);
    free(after);
    const char *view = NULL;
    rule(plugin->render(instance, &view) == FH_OK && view && plain_text(view),
         "render gives text without control characters", "%.80s", view ? view : "(NULL)");

    /* Effects: emits outside dispatch come from an effect in flight; nothing after stop. */
    pthread_mutex_lock(&lock);
    int unaccounted_now = unaccounted, origins = bad_origins;
    pthread_mutex_unlock(&lock);
    rule(unaccounted_now == 0, "every emit outside dispatch comes from an effect in flight", "%d not",
         unaccounted_now);
    rule(origins == 0, "every emit names an origin of the header's", "%d did not", origins);
    status = plugin->stop(instance);
    enter(STOPPED);
    rule(status == FH_OK, "stop succeeds", "%d %s", status, error_of(instance));
    struct timespec window = {0, 50 * 1000 * 1000};
    nanosleep(&window, NULL); /* an observation window: absence can only be seen over time */
    pthread_mutex_lock(&lock);
    int late = late_calls;
    pthread_mutex_unlock(&lock);
    rule(late == 0, "nothing is called back after stop returns", "%d callbacks", late);
    refused(instance, dispatch(instance, "{\"type\":\"created\"}"), FH_ERR_LIFECYCLE, created,
            "dispatch after stop is refused");
    rule(plugin->snapshot(instance, &text) == FH_OK, "snapshot works after stop", "%s", error_of(instance));
    plugin->destroy(instance);
    plugin->destroy(NULL);
    rule(1, "destroy takes NULL", "");
    free(fresh);
    free(created);

    printf("1..%d\n", rules);
    return broken == 0 ? 0 : 1;
}
