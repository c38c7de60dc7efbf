// The C plugin of the tests, built by them with `cc -shared` once per variant (FeatureTesting's
// FixturePlugin). One ABI skeleton (lifecycle, config, descriptor, entry) carries one of two features:
//
// - "fixture" (default; id overridable with -DFIXTURE_ID): for the host's tests. State {"count",
//   "disorder","foreign","pings","reentered"}. tick {tag, thread, n} counts ticks carrying this
//   instance's tag (config {"tag": "..."}) and counts as disorder a tick whose n does not follow its
//   thread's previous one; burst {threads, per} starts threads that each emit `per` numbered ticks;
//   ping {limit} re-emits itself as feedback until `pings` reaches limit (0: forever); step {name}
//   emits a navigation step; later schedules a tick 1 ms later on the host's clock (fh.clock/1).
// - "tally" (-DFIXTURE_TALLY): for `host validate`'s tests; keeps every rule of feature_abi.h and
//   reads JSON with the C example's flat_json.c. State {"pongs": n, "total": n}. add amount=<1 to 9>,
//   reset, ping (an effect: a thread emits {"type":"pong"}). Each BREAK_* macro breaks one rule, so
//   each check can be seen failing alone (RESET_NEEDS_A_TOTAL breaks none).
// - FIXTURE_FAULTS (with FIXTURE_TALLY): a tally that fails on demand, for the worker-process tests.
//   Actions segv, abort, exit (exit(0)), hang (never returns) and garbage (emits `{"type":"pong",`,
//   not JSON) fail in dispatch; render, snapshot and restore segfault on a state whose total is 13
//   (config {"fault_in": "render"} picks one of them); with {"fault_in": "reduce"} (only then)
//   reduce segfaults on an action that brings the total to 13.
//   With config {"fault_once": "/path"} a fault fires only while that file is missing or empty, and
//   writes to it first, so a restarted worker does not fail again (a sandboxed worker may write only
//   a declared file that exists: the tests create it empty).
//
// Descriptor macros, for either feature: FIXTURE_NO_ENTRY, FIXTURE_ENTRY_NULL, FIXTURE_WRONG_MAJOR,
// FIXTURE_NEWER_MINOR, FIXTURE_ABI_MINOR=<n> (declares ABI 1.n), FIXTURE_MISSING_DISPATCH, FIXTURE_BAD_MANIFEST, FIXTURE_MANIFEST_NO_NAME,
// FIXTURE_SMALL_STRUCT (struct_size 24), FIXTURE_STRUCT_END=<field> (struct_size ends where that
// field begins), FIXTURE_LONGER_STRUCT (fields a later 1.x would add follow the descriptor).
// Scanner macros (crash or hang while loading): see the marked block before the entry function.
// FIXTURE_STRUCTURED_VIEW (tally only): offers fh.structured_view/1; BREAK_STRUCTURED_VIEW_DIFFERS
// and BREAK_STRUCTURED_VIEW_NO_URL break its rules.
// Bugs hidden behind sequences, for `host explore` (tally only): EXPLORE_RESTORE_CAP (restore refuses a
// total over 20, which three adds reach), EXPLORE_CLOCK (add reads the clock: replay differs),
// EXPLORE_CRASH_ORDER (reset right after an add crashes, in dispatch only), EXPLORE_STOPPED_GLOBAL (one
// flag for every instance of the process, cleared by create and set by stop: in a flow run in process,
// a tally left on show after ':open tally' then ':back' answers "stopped" to every action),
// EXPLORE_REFUSAL_CHANGES (add amount=10 is refused but adds 1 all the same), EXPLORE_HANG (an add of 9
// right after another add never returns, in dispatch only), EXPLORE_ENDLESS_EFFECT (a ping right
// after an add begins an effect that never ends), EXPLORE_SLOW_EFFECT (a ping's effect takes 0.5 s:
// slow, not endless).
// FIXTURE_HANG_IN_DISPATCH (fixture only): {"type":"hang"} never returns, for call timeouts.
//
// Config, for either feature: "refuse" anywhere refuses it; {"destroy_log": "/path"} (or, without it,
// the environment variable FIXTURE_DESTROY_LOG) makes destroy append "destroy <n>\n" to that file,
// n numbering the instances of the process from 1.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "feature_abi.h"
#ifdef FIXTURE_TALLY
#include "flat_json.h"
#endif

#ifndef FIXTURE_ID
#ifdef FIXTURE_TALLY
#define FIXTURE_ID "tally"
#else
#define FIXTURE_ID "fixture"
#endif
#endif

#define MAX_THREADS 16
#define MAX_EFFECTS 64

typedef enum { CREATED, STARTED, STOPPED } phase;

struct fh_instance {
    const fh_host *host;
    phase phase;
    long number;
    char destroy_log[1024];
    pthread_t effects[MAX_EFFECTS];
    int effect_count;
    char output[512];
    char error[256];
    // fixture
    char tag[32];
    long count, foreign, pings, disorder;
    long last[MAX_THREADS];
    int reentered, in_dispatch;
    // tally
    long total, pongs, serial;
    int restored, last_was_add;
    char fault_once[1024];
    char fault_in[16];
};

static long instances_made;
#ifdef EXPLORE_STOPPED_GLOBAL
static int any_stopped;
#endif

static fh_status fail(fh_instance *instance, fh_status status, const char *message) {
    snprintf(instance->error, sizeof instance->error, FIXTURE_ID ": %s", message);
    return status;
}

/* The string value of "key" in config (not unescaped: test paths need no escapes), or "". */
static void config_string(const char *config, const char *key, char *out, size_t size) {
    char pattern[64], format[32];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    snprintf(format, sizeof format, "%%%zu[^\"]", size - 1);
    out[0] = '\0';
    const char *at = config ? strstr(config, pattern) : NULL;
    if (at) sscanf(at + strlen(pattern), format, out);
}

#ifdef FIXTURE_TALLY
// ---- tally ---------------------------------------------------------------------------------

#ifdef BREAK_NONDETERMINISTIC
// Shared by every instance, so a second instance numbers its states differently.
static long calls;
#endif

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
#ifdef EXPLORE_SLOW_EFFECT
    usleep(500000);
#else
    usleep(1000);
#endif
    host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
    host->effect_ended();
    return NULL;
}

#ifdef FIXTURE_FAULTS
static int *volatile fault_nowhere = NULL;

/* Whether a fault may fire now: always, or once per marker file (config "fault_once"). */
static int fault_fires(const fh_instance *instance) {
    if (!instance->fault_once[0]) return 1;
    struct stat marker_status;
    if (stat(instance->fault_once, &marker_status) == 0 && marker_status.st_size > 0) return 0;
    FILE *marker = fopen(instance->fault_once, "w");
    if (marker) {
        fputs("fired\n", marker);
        fclose(marker);
    }
    return 1;
}

static int fault_action(const char *type) {
    return !strcmp(type, "segv") || !strcmp(type, "abort") || !strcmp(type, "exit") || !strcmp(type, "hang")
           || !strcmp(type, "garbage");
}

static void run_fault(fh_instance *instance, const char *type) {
    if (!strcmp(type, "segv")) *fault_nowhere = 1;
    if (!strcmp(type, "abort")) abort();
    if (!strcmp(type, "exit")) exit(0);
    if (!strcmp(type, "hang")) for (;;) pause();
    if (!strcmp(type, "garbage")) instance->host->emit("{\"type\":\"pong\",", FH_ORIGIN_FEEDBACK);
}

static void fault_if_13(const fh_instance *instance, long total, const char *function) {
    int chosen = !instance->fault_in[0] || strcmp(instance->fault_in, function) == 0;
    if (total == 13 && chosen && fault_fires(instance)) *fault_nowhere = 1;
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
#ifdef EXPLORE_REFUSAL_CHANGES
            if (amount && amount->kind == FLAT_INTEGER && amount->integer == 10) instance->total += 1;
#endif
            return refuse_action(instance, "add needs amount=<integer from 1 to 9>");
        }
        total += amount->integer;
#ifdef EXPLORE_HANG
        // An add of 9 right after another add never returns (in dispatch only: replay goes on).
        if (effects && instance->last_was_add && amount->integer == 9) for (;;) pause();
#endif
#ifdef EXPLORE_CLOCK
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        total += now.tv_nsec % 97;
#endif
    } else if (strcmp(type->text, "reset") == 0) {
#ifdef EXPLORE_CRASH_ORDER
        if (effects && instance->last_was_add) *(volatile int *)0 = 1;
#endif
#ifdef BREAK_REFUSE_RESET
        return refuse_action(instance, "reset is broken in this build");
#endif
#ifdef RESET_NEEDS_A_TOTAL
        // Not a breach: an action refused in some states is fine if some state accepts it.
        if (total == 0) return refuse_action(instance, "nothing to reset");
#endif
        total = 0;
    } else if (strcmp(type->text, "ping") == 0) {
#ifdef FIXTURE_FAULTS
    } else if (fault_action(type->text)) {
        /* Faults are side effects: replay (reduce) applies them as no-ops. */
        if (effects) run_fault(instance, type->text);
#endif
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
        int endless = 0;
#ifdef EXPLORE_ENDLESS_EFFECT
        // A ping right after an add begins an effect that never ends: the store never settles.
        endless = instance->last_was_add;
#endif
        if (!endless) {
            pthread_create(&instance->effects[instance->effect_count++], NULL, ping_effect, (void *)instance->host);
        }
    }
#ifdef BREAK_NONDETERMINISTIC
    instance->serial = ++calls;
#endif
#ifdef FIXTURE_FAULTS
    /* Named only: the tests that restore or replay a faulty tally need reduce to work. */
    if (!effects && total == 13 && !strcmp(instance->fault_in, "reduce") && fault_fires(instance)) *fault_nowhere = 1;
#endif
    if (flags) *flags = total != instance->total || pongs != instance->pongs ? FH_DISPATCH_STATE_CHANGED : 0;
    if (effects) instance->last_was_add = strcmp(type->text, "add") == 0;
    instance->total = total;
    instance->pongs = pongs;
    instance->error[0] = '\0';
    return FH_OK;
}

static fh_status feature_dispatch(fh_instance *instance, const char *json, uint32_t *flags) {
    return apply(instance, json, flags, 1);
}

static fh_status feature_reduce(fh_instance *instance, const char *json, uint32_t *flags) {
    return apply(instance, json, flags, 0);
}

static void feature_snapshot(fh_instance *instance) {
#ifdef FIXTURE_FAULTS
    fault_if_13(instance, instance->total, "snapshot");
#endif
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
}

static fh_status feature_restore(fh_instance *instance, const char *json) {
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
#ifdef EXPLORE_RESTORE_CAP
    if (valid && total->integer > 20) return fail(instance, FH_ERR_BAD_STATE, "a total is at most 20");
#endif
    if (!valid) {
#ifdef BREAK_RESTORE_ACCEPTS_GARBAGE
        return FH_OK;
#endif
        return fail(instance, FH_ERR_BAD_STATE, "a state is {\"pongs\": n, \"total\": n}");
    }
#ifdef FIXTURE_FAULTS
    fault_if_13(instance, total->integer, "restore");
#endif
    instance->total = total->integer;
    instance->pongs = pongs->integer;
    if (serial) instance->serial = serial->integer;
    instance->restored = 1;
    return FH_OK;
}

static void feature_render(fh_instance *instance) {
#ifdef FIXTURE_FAULTS
    fault_if_13(instance, instance->total, "render");
#endif
#ifdef BREAK_RENDER_ESCAPES
    const char *title = "\x1b[1mTally\x1b[0m";
#else
    const char *title = "Tally";
#endif
    snprintf(instance->output, sizeof instance->output, "%s\n  total: %ld\n  pongs: %ld", title, instance->total,
             instance->pongs);
}

#ifdef BREAK_EMPTY_NAME
#define NAME ""
#else
#define NAME "Tally"
#endif

#define ACTIONS                                                                                         \
    "\"actions\":[{\"type\":\"add\",\"help\":\"Add to the total.\",\"arguments\":[{\"name\":"          \
    "\"amount\",\"type\":\"integer\",\"help\":\"how much, 1 to 9\"}]},"                                \
    "{\"type\":\"reset\",\"help\":\"Start again from 0.\"},"                                           \
    "{\"type\":\"ping\",\"help\":\"Start an effect that answers pong.\"}" FAULT_ACTIONS "]}"
#define IDENTITY "\"name\":\"" NAME "\",\"version\":\"1.0.0\",\"description\":\"Counts.\","
#ifdef FIXTURE_FAULTS
#define FAULT_ACTIONS                                                                                  \
    ",{\"type\":\"segv\",\"help\":\"Segfault.\"},{\"type\":\"abort\",\"help\":\"Call abort().\"},"  \
    "{\"type\":\"exit\",\"help\":\"Call exit(0).\"},{\"type\":\"hang\",\"help\":\"Never return.\"},"  \
    "{\"type\":\"garbage\",\"help\":\"Emit an action that is not JSON.\"}"
#else
#define FAULT_ACTIONS ""
#endif

#else
// ---- fixture -------------------------------------------------------------------------------

struct burst { fh_instance *instance; long per; int thread; };

static long number_after(const char *json, const char *key, long fallback) {
    const char *at = strstr(json, key);
    if (!at) return fallback;
    at = strchr(at + strlen(key), ':');
    return at ? strtol(at + 1, NULL, 10) : fallback;
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

static void apply_tick(fh_instance *instance, const char *action) {
    char tag[40];
    snprintf(tag, sizeof tag, "\"tag\":\"%s\"", instance->tag);
    if (strstr(action, tag)) instance->count++; else instance->foreign++;
    long thread = number_after(action, "\"thread\"", -1), n = number_after(action, "\"n\"", -1);
    if (thread >= 0 && thread < MAX_THREADS) {
        if (n != instance->last[thread] + 1) instance->disorder++;
        instance->last[thread] = n;
    }
}

static fh_status feature_dispatch(fh_instance *instance, const char *action, uint32_t *flags) {
#ifdef FIXTURE_HANG_IN_DISPATCH
    // ---- FIXTURE_HANG_IN_DISPATCH: {"type":"hang"} never returns (the worker's call timeout) ----
    if (strstr(action, "\"hang\"")) for (;;) pause();
    // ---- end FIXTURE_HANG_IN_DISPATCH ----
#endif
    if (instance->in_dispatch) instance->reentered = 1;
    instance->in_dispatch = 1;
    fh_status status = FH_OK;
    uint32_t changed = 1;
    if (action[0] != '{' || !strstr(action, "\"type\"")) {
        status = fail(instance, FH_ERR_BAD_ACTION, "action is not a JSON object with a type");
    } else if (strstr(action, "\"tick\"")) {
        apply_tick(instance, action);
    } else if (strstr(action, "\"burst\"")) {
        long threads = number_after(action, "\"threads\"", 1), per = number_after(action, "\"per\"", 1);
        for (long t = 0; t < threads && instance->effect_count < MAX_THREADS; t++) {
            struct burst *burst = malloc(sizeof *burst);
            burst->instance = instance;
            burst->per = per;
            burst->thread = instance->effect_count;
            instance->host->effect_began();
            pthread_create(&instance->effects[instance->effect_count++], NULL, burst_thread, burst);
        }
        changed = 0;
    } else if (strstr(action, "\"ping\"")) {
        long limit = number_after(action, "\"limit\"", 0);
        instance->pings++;
        if (limit == 0 || instance->pings < limit) instance->host->emit(action, FH_ORIGIN_FEEDBACK);
    } else if (strstr(action, "\"later\"")) {
        // A tick one millisecond later, on the host's clock; never cancelled.
        const fh_host_clock *clock = instance->host->get_extension(FH_EXT_CLOCK);
        char tick[96];
        snprintf(tick, sizeof tick, "{\"type\":\"tick\",\"tag\":\"%s\"}", instance->tag);
        if (clock) clock->schedule(1000000, tick, FH_ORIGIN_EFFECT);
        changed = 0;
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

static fh_status feature_reduce(fh_instance *instance, const char *action, uint32_t *flags) {
    // Replay: ticks change this fixture's state as in dispatch; lifecycle actions change nothing;
    // the others are effects only.
    if (strstr(action, "\"created\"") || strstr(action, "\"restored\"")) {
        if (flags) *flags = 0;
        return FH_OK;
    }
    if (!strstr(action, "\"tick\"")) return fail(instance, FH_ERR_BAD_ACTION, "reduce only replays ticks");
    apply_tick(instance, action);
    if (flags) *flags = FH_DISPATCH_STATE_CHANGED;
    return FH_OK;
}

static void feature_snapshot(fh_instance *instance) {
    snprintf(instance->output, sizeof instance->output,
             "{\"count\":%ld,\"disorder\":%ld,\"foreign\":%ld,\"pings\":%ld,\"reentered\":%d}",
             instance->count, instance->disorder, instance->foreign, instance->pings, instance->reentered);
}

static fh_status feature_restore(fh_instance *instance, const char *state) {
    if (!strstr(state, "\"count\"")) return fail(instance, FH_ERR_BAD_STATE, "state has no count");
    instance->count = number_after(state, "\"count\"", 0);
    return FH_OK;
}

static void feature_render(fh_instance *instance) {
    snprintf(instance->output, sizeof instance->output, "fixture %s\ncount: %ld", instance->tag, instance->count);
}

#define IDENTITY "\"name\":\"Fixture\",\"version\":\"0.0.1\",\"description\":\"test\","
#define ACTIONS                                                                                    \
    "\"actions\":[{\"type\":\"tick\",\"help\":\"count one\",\"arguments\":[{\"name\":\"tag\","    \
    "\"type\":\"string\",\"help\":\"instance tag\",\"required\":false}]},"                          \
    "{\"type\":\"burst\",\"help\":\"emit from threads\",\"arguments\":[{\"name\":\"threads\","     \
    "\"type\":\"integer\",\"help\":\"\"},{\"name\":\"per\",\"type\":\"integer\",\"help\":\"\"}]},"    \
    "{\"type\":\"ping\",\"help\":\"feedback loop\",\"arguments\":[{\"name\":\"limit\","            \
    "\"type\":\"integer\",\"help\":\"0 forever\",\"required\":false}]},"                    \
    "{\"type\":\"later\",\"help\":\"a tick 1 ms later\"},"                                          \
    "{\"type\":\"step\",\"help\":\"emit a navigation step\",\"arguments\":[{\"name\":\"name\","     \
    "\"type\":\"string\",\"help\":\"\"}]}],\"steps\":[{\"step\":\"go\",\"help\":\"\"}]}"
#endif

// ---- the ABI skeleton ----------------------------------------------------------------------

static fh_status create(const fh_host *host, const char *config, fh_instance **out) {
    fh_instance *instance = calloc(1, sizeof *instance);
    *out = instance;
    if (!instance) return FH_ERR_INTERNAL;
    instance->host = host;
    instance->number = __atomic_add_fetch(&instances_made, 1, __ATOMIC_SEQ_CST);
#ifdef EXPLORE_STOPPED_GLOBAL
    any_stopped = 0;
#endif
    config_string(config, "tag", instance->tag, sizeof instance->tag);
    config_string(config, "destroy_log", instance->destroy_log, sizeof instance->destroy_log);
#ifdef FIXTURE_FAULTS
    config_string(config, "fault_once", instance->fault_once, sizeof instance->fault_once);
    config_string(config, "fault_in", instance->fault_in, sizeof instance->fault_in);
#endif
    const char *log = getenv("FIXTURE_DESTROY_LOG");
    if (!instance->destroy_log[0] && log) snprintf(instance->destroy_log, sizeof instance->destroy_log, "%s", log);
    if (config && strstr(config, "\"refuse\"")) return fail(instance, FH_ERR_BAD_CONFIG, "config 'refuse' is set");
    return FH_OK;
}

static fh_status start(fh_instance *instance) {
    if (instance->phase != CREATED) return fail(instance, FH_ERR_LIFECYCLE, "start: not a fresh instance");
    instance->phase = STARTED;
    return FH_OK;
}

static fh_status dispatch(fh_instance *instance, const char *json, uint32_t *flags) {
#ifdef EXPLORE_STOPPED_GLOBAL
    if (any_stopped) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: stopped");
#endif
#ifdef BREAK_DISPATCH_BEFORE_START
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: stopped");
#else
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: not started");
#endif
    return feature_dispatch(instance, json, flags);
}

static fh_status reduce(fh_instance *instance, const char *json, uint32_t *flags) {
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "reduce: stopped");
    return feature_reduce(instance, json, flags);
}

static fh_status snapshot(fh_instance *instance, const char **out) {
    feature_snapshot(instance);
    *out = instance->output;
    return FH_OK;
}

static fh_status restore(fh_instance *instance, const char *json) {
    if (instance->phase == STOPPED) return fail(instance, FH_ERR_LIFECYCLE, "restore: stopped");
    return feature_restore(instance, json);
}

static fh_status render(fh_instance *instance, const char **out) {
    feature_render(instance);
    *out = instance->output;
    return FH_OK;
}

#ifdef BREAK_EMIT_AFTER_STOP
static void *late_effect(void *argument) {
    const fh_host *host = argument;
    usleep(20000);
    host->emit("{\"type\":\"pong\"}", FH_ORIGIN_EFFECT);
    return NULL;
}
#endif

static fh_status stop(fh_instance *instance) {
    if (instance->phase != STARTED) return fail(instance, FH_ERR_LIFECYCLE, "stop: not started");
    // Join the effects' threads: once stop returns the plugin makes no callback.
    for (int i = 0; i < instance->effect_count; i++) pthread_join(instance->effects[i], NULL);
    instance->effect_count = 0;
    instance->phase = STOPPED;
#ifdef EXPLORE_STOPPED_GLOBAL
    any_stopped = 1;
#endif
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
    if (instance->destroy_log[0]) {
        FILE *log = fopen(instance->destroy_log, "a");
        if (log) {
            fprintf(log, "destroy %ld\n", instance->number);
            fclose(log);
        }
    }
    free(instance);
}

static const char *last_error(const fh_instance *instance) { return instance->error; }

#if defined(FIXTURE_TALLY) && (defined(FIXTURE_STRUCTURED_VIEW) || defined(BREAK_STRUCTURED_VIEW_DIFFERS) || \
                               defined(BREAK_STRUCTURED_VIEW_NO_URL))
#define OFFERS_STRUCTURED_VIEW 1
#ifdef BREAK_STRUCTURED_VIEW_DIFFERS
#define TOTAL_ALT "total: %ld"
#else
#define TOTAL_ALT "  total: %ld"
#endif
#ifdef BREAK_STRUCTURED_VIEW_NO_URL
#define TOTAL_URL ""
#else
#define TOTAL_URL "file:///nonexistent/total.png"
#endif
/* fh.structured_view/1 (FIXTURE_STRUCTURED_VIEW): the total's line is an image whose alt is that
 * line; BREAK_STRUCTURED_VIEW_DIFFERS drops its indent, BREAK_STRUCTURED_VIEW_NO_URL its URL. */
static fh_status render_structured(fh_instance *instance, const char **out) {
    static __thread char view[512];
    snprintf(view, sizeof view,
             "{\"items\":[{\"text\":\"Tally\"},{\"image\":{\"url\":\"" TOTAL_URL "\",\"alt\":\"" TOTAL_ALT
             "\",\"width\":4,\"height\":2}},{\"text\":\"  pongs: %ld\"}]}",
             instance->total, instance->pongs);
    *out = view;
    return FH_OK;
}

static const fh_structured_view structured_view = {
    .struct_size = sizeof(fh_structured_view),
    .render_structured = render_structured,
};
#endif

/* Offers no capability (but fh.structured_view/1 in its variants); non-NULL so a descriptor cut
 * short before it shows the host ignoring it. */
static const void *get_extension(const char *id) {
#ifdef OFFERS_STRUCTURED_VIEW
    if (strcmp(id, FH_EXT_STRUCTURED_VIEW) == 0) return &structured_view;
#endif
    (void)id;
    return NULL;
}

#ifdef FIXTURE_BAD_MANIFEST
#define MANIFEST "this is not json"
#elif defined(FIXTURE_MANIFEST_NO_NAME)
#define MANIFEST "{\"id\":\"" FIXTURE_ID "\",\"version\":\"1.0.0\",\"actions\":[]}"
#else
#define MANIFEST "{\"id\":\"" FIXTURE_ID "\"," IDENTITY NEEDS ACTIONS
#endif

/* The files the logs and markers above are written to: the sandbox grants each, from its setting
 * or environment variable (a constructor's load log in a worker only: the scanner has no grant). */
#define NEEDS                                                                                          \
    "\"needs\":{\"write\":[{\"setting\":\"destroy_log\",\"environment\":\"FIXTURE_DESTROY_LOG\"},"     \
    "{\"setting\":\"fault_once\"},{\"setting\":\"load_log\",\"environment\":\"FIXTURE_LOAD_LOG\"}]},"

#define LATER_FIELDS 4
#if defined(FIXTURE_SMALL_STRUCT)
#define STRUCT_SIZE 24
#elif defined(FIXTURE_STRUCT_END)
#define STRUCT_SIZE offsetof(fh_plugin, FIXTURE_STRUCT_END)
#elif defined(FIXTURE_LONGER_STRUCT)
#define STRUCT_SIZE (sizeof(fh_plugin) + LATER_FIELDS * sizeof(void *))
#else
#define STRUCT_SIZE sizeof(fh_plugin)
#endif

/* The descriptor, followed (FIXTURE_LONGER_STRUCT) by fields a later 1.x header would add. */
static const struct {
    fh_plugin plugin;
    const void *later[LATER_FIELDS];
} descriptor = {
    .plugin = {
        .struct_size = STRUCT_SIZE,
#ifdef FIXTURE_WRONG_MAJOR
        .abi_major = FH_ABI_MAJOR + 1,
#else
        .abi_major = FH_ABI_MAJOR,
#endif
#if defined(FIXTURE_NEWER_MINOR)
        .abi_minor = FH_ABI_MINOR + 7,
#elif defined(FIXTURE_ABI_MINOR)
        .abi_minor = FIXTURE_ABI_MINOR,
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
        .get_extension = get_extension,
    },
    .later = {"later", "later", "later", "later"},
};

/* ---- Registry scanner variants (plugin registry, issue 10) --------------------------------------
 * FIXTURE_CRASH_IN_CONSTRUCTOR: a library constructor writes through NULL (SIGSEGV in dlopen).
 * FIXTURE_CRASH_IN_ENTRY: fh_plugin_entry_v1 writes through NULL (SIGSEGV).
 * FIXTURE_HANG_IN_ENTRY: fh_plugin_entry_v1 never returns.
 * FIXTURE_LOG_LOADS: when loaded, a constructor appends "loaded\n" to the file named by the
 *   environment variable FIXTURE_LOAD_LOG (if set), so a test can see which processes load it. */
#if defined(FIXTURE_CRASH_IN_CONSTRUCTOR) || defined(FIXTURE_CRASH_IN_ENTRY)
/* volatile, so the compiler keeps the store instead of proving it undefined and dropping it. */
static int *volatile scan_variant_nowhere = NULL;
#endif
#ifdef FIXTURE_CRASH_IN_CONSTRUCTOR
__attribute__((constructor)) static void scan_variant_constructor(void) { *scan_variant_nowhere = 1; }
#endif
#ifdef FIXTURE_LOG_LOADS
__attribute__((constructor)) static void scan_variant_log_load(void) {
    const char *path = getenv("FIXTURE_LOAD_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (log) {
        fputs("loaded\n", log);
        fclose(log);
    }
}
#endif
static void scan_variant_entry(void) {
#if defined(FIXTURE_CRASH_IN_ENTRY)
    *scan_variant_nowhere = 1;
#elif defined(FIXTURE_HANG_IN_ENTRY)
    for (;;) pause();
#endif
}
/* ---- end of the registry scanner variants ------------------------------------------------------ */

#ifdef FIXTURE_NO_ENTRY
FH_EXPORT const fh_plugin *fh_plugin_entry(void) { return &descriptor.plugin; }
#else
FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) {
    scan_variant_entry(); /* registry scanner variants, above */
#ifdef FIXTURE_ENTRY_NULL
    return NULL;
#else
    return &descriptor.plugin;
#endif
}
#endif
