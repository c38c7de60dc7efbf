/*
 * feature_abi.h - the FeatureHost plugin ABI, version 1.1.
 *
 * This header is the whole contract between the host and a feature plugin. A plugin is a shared
 * library that exports one function, fh_plugin_entry_v1, returning a descriptor of the feature it
 * implements: an MVI state machine whose actions and states are JSON objects.
 *
 * Conventions
 * - Every string is NUL-terminated UTF-8.
 * - A string passed into a function is borrowed for the duration of that call only.
 * - A string a function returns through an out-pointer is owned by the instance and stays valid until
 *   the next call on that instance (or until destroy). Never free() it: the host copies what it keeps.
 * - Errors: every fallible function returns an fh_status; on failure the instance's last_error()
 *   describes it in one line. A plugin never crashes on bad input and never fails silently.
 * - NULL: the host passes NULL only where a parameter says it may (out_flags; destroy's instance);
 *   an instance pointer is never NULL elsewhere. A plugin still treats a NULL string as bad input,
 *   never a crash: create refuses a NULL config with FH_ERR_BAD_CONFIG, dispatch and reduce a NULL
 *   action with FH_ERR_BAD_ACTION, restore a NULL state with FH_ERR_BAD_STATE.
 * - Strict input: an action with a member its type does not take, a state with a member the
 *   feature does not know, and a config with a setting the feature does not read are refused (with
 *   FH_ERR_BAD_ACTION, FH_ERR_BAD_STATE, FH_ERR_BAD_CONFIG, naming the member), never ignored: a
 *   dropped member is a silent failure (a typo in an argument, a state from a newer build).
 * - Structs begin with struct_size and only ever grow at their end. Readers must not read a field
 *   whose end lies beyond struct_size. Read a struct with fh_struct_read: a zeroed copy of what both
 *   sides know. A field the sender's struct_size does not reach is absent: an optional one reads as
 *   NULL, and a descriptor that ends before a required field is refused, naming the field.
 * - Sizes and versions: a host uses a descriptor whose abi_major equals its own and whose abi_minor
 *   does not exceed its own (fh_abi_is_compatible), whatever its struct_size. A larger struct_size
 *   (a plugin adding fields this host does not know) is accepted and the unknown tail is ignored; a
 *   newer abi_minor is refused even when the fields this host knows are all there, because a newer
 *   minor may give existing fields a meaning the older host does not honour.
 * - Optional capabilities are found by versioned string id through get_extension ("fh.xxx/1"),
 *   which returns NULL when the capability is absent.
 *
 * Threading (the tags written on every function)
 * - [any-thread]       may be called from any thread, concurrently.
 * - [store-thread]     calls on one instance are serialized by the host: never two at once, never
 *                      re-entered from a host callback. Different instances may be called in parallel.
 * - [callback]         host callbacks are thread-safe. They may be called from any thread once
 *                      start has returned, until stop returns (and emit also during dispatch, see
 *                      below); log also during create and start. Nothing else is called during
 *                      create or start: an instance's first work comes from its lifecycle action.
 *                      After stop returns the plugin calls nothing on that instance's fh_host.
 *
 * Lifecycle of an instance
 *   create -> [restore] -> start -> (dispatch | reduce | snapshot | restore | render)* -> stop -> destroy
 * snapshot, render and reduce are also allowed before start, and snapshot, render after stop.
 * A call out of this order returns FH_ERR_LIFECYCLE, never undefined behaviour. After start the host dispatches one
 * lifecycle action first: {"type":"created"} for a fresh instance, or {"type":"restored"} when
 * the state was set with restore before start. dispatch refuses with FH_ERR_LIFECYCLE any other
 * action before it, and a second lifecycle action after it; reduce (replay) takes them anywhere.
 *
 * Memory: the plugin is never unloaded while the host runs (it is loaded with RTLD_NODELETE), so
 * the descriptor, its manifest and its function pointers stay valid for the life of the process.
 *
 * ChangeLog (a plugin declares in abi_minor the minor whose rules it keeps)
 * - 1.0: first version: descriptor, host callbacks (emit, log, effect_began, effect_ended,
 *        get_extension), lifecycle, dispatch and effect-free reduce, snapshot/restore, render,
 *        manifest; host extensions fh.navigation/1 (steps) and fh.clock/1 (timers).
 * - 1.1 (clarified, no layout change): how struct_size and abi_minor combine (see Conventions:
 *        a larger struct_size is accepted, a newer minor is not; a missing optional field is
 *        absent, a missing required one refuses the descriptor); fh_struct_read added; the
 *        manifest's required fields (manifest_json); reserved must be zero (fh_plugin).
 *        A 1.0 plugin gets the same: these say what a 1.0 host already did, and a descriptor
 *        or manifest that breaks them cannot be run at any minor.
 * - 1.1 (decided, no layout change): a NULL string is refused, never a crash (Conventions);
 *        unknown action members, state members and config settings are refused (Conventions,
 *        FH_ERR_BAD_*); a refused argument value is never applied (FH_ERR_BAD_ACTION); dispatch
 *        refuses actions before the lifecycle action and a second one (Lifecycle); callbacks
 *        only after start returns, log also during create and start ([callback]); an effect
 *        that stop cancels needs no effect_ended (effect_ended); last_error does not end the
 *        life of a string returned before it (last_error); an emit outside dispatch comes from
 *        an effect in flight (emit); origin names the cause, a paced feedback is FEEDBACK
 *        (fh_origin).
 *        A 1.0 plugin is loaded and run as before: the host sends the lifecycle action first
 *        and passes no NULL, so a run never depends on these. host validate judges it by 1.0's
 *        rules: where it breaks one of these, the check says `note`, not `fail`.
 * - 1.1 (added, optional): plugin extension fh.render_options/1 (render_with: the view fitted
 *        to the terminal's width, or complete for the host's ':view'); plugin extension
 *        fh.structured_view/1: a view of text lines and image items (URL, alternative text,
 *        preferred size) as JSON, beside render's plain text. A host looks them up whatever the
 *        plugin's minor; a 1.0 plugin that offers neither is drawn with render.
 * - 1.1 (added, optional): the manifest's "needs" (manifest_json): the ports and paths a plugin
 *        needs beyond computing, which its worker is granted. A manifest without it declares none;
 *        a malformed one refuses the manifest, at any minor.
 *
 * How the contract changes
 * - A published minor never changes its rules. A new rule a plugin must keep, a new field or a
 *   new meaning of one is a new minor: FH_ABI_MINOR goes up, the entry here names the version
 *   and what a plugin of an older minor gets. A host loads every older minor of its major and
 *   holds each plugin to the rules of the minor it declares; validate notes a newer rule as
 *   advice, and fails only the rules of the declared minor.
 * - A change that an older plugin cannot be run under is a new major: a new entry symbol
 *   (fh_plugin_entry_v2), so an old host and an old plugin refuse each other by name.
 * - Extensions are versioned by their id ("fh.xxx/2" beside "fh.xxx/1").
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FH_EXPORT __attribute__((visibility("default")))
#else
#define FH_EXPORT
#endif

#define FH_ABI_MAJOR 1u
/* The newest minor this header describes. A plugin sets abi_minor to the number of the minor
 * whose rules it keeps (1 for this header's), not to this macro: rebuilt against a later header,
 * it keeps declaring the rules it was written for. */
#define FH_ABI_MINOR 1u

/* The name of the one symbol a plugin exports. The ABI major is part of it. */
#define FH_ENTRY_SYMBOL "fh_plugin_entry_v1"

/* Result of every fallible call. */
typedef int32_t fh_status;
enum {
    FH_OK = 0,
    /* The action JSON is NULL or malformed, its "type" is unknown, an argument is invalid (missing,
     * of the wrong kind, out of range), or it has a member its type does not take. The state is
     * exactly what it was: a refused argument value is never applied, not even in part. */
    FH_ERR_BAD_ACTION = 1,
    /* restore: the state JSON is NULL, malformed, not a valid state, or has a member the feature
     * does not know. The state is unchanged. */
    FH_ERR_BAD_STATE = 2,
    /* create: the config JSON is NULL or malformed, a setting has an invalid value, or it names a
     * setting the feature does not read. The message names the setting and lists the ones the
     * feature reads. */
    FH_ERR_BAD_CONFIG = 3,
    /* The call is not allowed in the instance's lifecycle phase (e.g. dispatch before start). */
    FH_ERR_LIFECYCLE = 4,
    /* Anything else that went wrong inside the plugin. */
    FH_ERR_INTERNAL = 5,
};

/* Flags dispatch reports through out_flags. */
enum {
    /* The reducer produced a state different from the one before: the host may re-render. */
    FH_DISPATCH_STATE_CHANGED = 1u << 0,
};

/* Why an action emitted by the plugin exists; recorded in journals. The origin names the cause, not
 * the means of delivery: an action a feedback rule sends through a timer (fh.clock/1, a paced step)
 * is FH_ORIGIN_FEEDBACK; a timer an effect set is FH_ORIGIN_EFFECT. No other value is valid. */
typedef int32_t fh_origin;
enum {
    /* The result of an effect (a network response, a timer the effect set). */
    FH_ORIGIN_EFFECT = 1,
    /* A feedback rule reacting to a new state (Spin-style), sent at once or paced by a timer. */
    FH_ORIGIN_FEEDBACK = 2,
};

typedef int32_t fh_log_level;
enum {
    FH_LOG_DEBUG = 0,
    FH_LOG_INFO = 1,
    FH_LOG_WARNING = 2,
    FH_LOG_ERROR = 3,
};

/*
 * What the host hands each instance at create. Every function pointer here is bound to that one
 * instance (two instances of one plugin get different pointers), so callbacks need no context
 * argument. The struct and its functions stay valid until destroy returns; the plugin may keep the
 * pointer. Read no field beyond struct_size.
 */
typedef struct fh_host {
    uint32_t struct_size; /* sizeof(fh_host) as the host was built */
    uint32_t abi_major;   /* FH_ABI_MAJOR of the host */
    uint32_t abi_minor;   /* FH_ABI_MINOR of the host */
    uint32_t reserved;    /* zero */

    /* The host's version, e.g. "0.1.0". Static. */
    const char *host_version;

    /* [callback] Queue an action for this instance's store. action_json is a JSON object with a
     * string "type"; borrowed for the call. Never re-enters the plugin: an emit made during
     * dispatch (a feedback reacting synchronously) is queued and dispatched after the current
     * action. Allowed during dispatch and from any thread between start and stop; ignored (and
     * counted by the host) otherwise. An emit outside dispatch comes from an effect in flight:
     * between its effect_began and its effect_ended. origin is FH_ORIGIN_EFFECT or
     * FH_ORIGIN_FEEDBACK. */
    void (*emit)(const char *action_json, fh_origin origin);

    /* [callback] Log one line for this instance. message is borrowed for the call. Allowed from
     * the start of create (a config worth a warning) until stop returns. */
    void (*log)(fh_log_level level, const char *message);

    /* [callback] Tell the host an effect is now in flight. Call it before the dispatch that
     * started the effect returns, so the host never sees the instance as settled while work is
     * pending. */
    void (*effect_began)(void);

    /* [callback] Tell the host an effect has finished. Call it after the effect's last emit.
     * Each effect_began is matched by exactly one effect_ended, or by stop: an effect that stop
     * cancels needs no effect_ended (the host counts every effect as ended when stop returns),
     * and one made while stop runs is allowed. Never more effect_ended than effect_began. */
    void (*effect_ended)(void);

    /* [any-thread] Look up a host capability by versioned id ("fh.navigation/1").
     * Returns NULL when the host does not offer it. The returned struct is bound to this instance
     * and valid until destroy returns. */
    const void *(*get_extension)(const char *id);
} fh_host;

/* An instance of the feature, owned by the plugin. Opaque to the host. */
typedef struct fh_instance fh_instance;

/*
 * The plugin descriptor. Static: the plugin returns the same pointer on every call of the entry
 * function. Required functions are non-NULL; get_extension may be NULL.
 */
typedef struct fh_plugin {
    uint32_t struct_size; /* sizeof(fh_plugin) as the plugin was built */
    uint32_t abi_major;   /* must equal the host's FH_ABI_MAJOR */
    uint32_t abi_minor;   /* the minor whose rules the plugin keeps (see the ChangeLog); must not
                           * exceed the host's FH_ABI_MINOR */
    uint32_t reserved;    /* zero; a host refuses a descriptor where it is not (a later minor may
                           * give it a meaning, and an older host cannot tell) */

    /* The manifest: a JSON object, static for the life of the process:
     *   {"id": "counter",                       lowercase letters, digits, '-' or '_'
     *    "name": "Counter", "version": "1.0.0", "description": "...",
     *    "actions": [                           the catalogue of actions a user may type
     *      {"type": "set", "help": "Start a new regulation",
     *       "arguments": [{"name": "left", "type": "integer", "help": "...", "required": true}]}]}
     * Argument types: "integer", "number", "string", "boolean". The lifecycle actions "created" and
     * "restored" are sent by the host only and are not listed. Optional "steps": the navigation
     * steps the feature emits, [{"step": "featurePicked", "help": "..."}] (see fh.navigation/1).
     * Required: "id", "name", "version" (non-empty strings), "actions" (an array, may be empty),
     * each action's "type", each argument's "name" (not "type", not twice in one action) and
     * "type", each step's "step". Optional: "description", every "help" (shown by :help; empty when
     * absent), "required" (default true), "steps", "needs". Unknown fields are ignored, except in
     * "needs". A host refuses a manifest that breaks these rules, and list, run and validate apply
     * the same rules.
     * Optional "needs": what the plugin needs beyond computing (absent: nothing); a sandboxed
     * worker is granted these and nothing else, and list shows them:
     *   "needs": {"connect": [443, {"setting": "endpoint", "environment": "KITTENS_ENDPOINT",
     *                               "default": "https://api.thecatapi.com/v1/images/search"}],
     *             "read": ["/usr/share/dict/words"], "write": [{"setting": "folder"}]}
     * "connect": TCP ports, 1...65535. "read", "write": absolute paths ("~/" is $HOME), each a file
     * or a folder and everything beneath it; write implies read. In place of a port or path, a
     * setting reference: "setting" (a config key, required), "environment" (the variable read when
     * the config does not set it), "default" (the value when neither does), all strings. Its value
     * in "connect" is an http or https URL (its port: explicit, else 80 or 443) or a port number; in
     * "read" and "write" an absolute path or a file: URL. A value of another kind grants nothing.
     * Unknown keys in "needs" or in a reference, a port out of range and a relative path refuse the
     * manifest. */
    const char *manifest_json;

    /* [any-thread] Create an instance from config_json (a JSON object, "{}" for defaults; borrowed).
     * host is owned by the host and valid until destroy returns. A setting the feature does not
     * read, or a NULL config_json, fails with FH_ERR_BAD_CONFIG. Only log may be called back.
     * Returns FH_OK and sets *out_instance. On failure *out_instance is either NULL (no memory) or an
     * instance whose only valid calls are last_error and destroy. */
    fh_status (*create)(const fh_host *host, const char *config_json, fh_instance **out_instance);

    /* [store-thread] Start the instance: once it returns, effects may run and callbacks may be made
     * (during start only log). Fails with FH_ERR_LIFECYCLE unless the instance was created and not
     * yet started. */
    fh_status (*start)(fh_instance *instance);

    /* [store-thread] Reduce one action (a JSON object with a string "type"; borrowed) into the
     * state, then start the effects and run the feedbacks it calls for. Only while started.
     * On FH_OK, *out_flags (if out_flags is not NULL) receives FH_DISPATCH_* flags.
     * On FH_ERR_BAD_ACTION the state is exactly what it was before the call. Before the lifecycle
     * action (see Lifecycle) any other action, and after it a second one, fail with
     * FH_ERR_LIFECYCLE. */
    fh_status (*dispatch)(fh_instance *instance, const char *action_json, uint32_t *out_flags);

    /* [store-thread] Reduce one action into the state and nothing else: no effect starts, no
     * feedback runs, nothing is emitted. The host uses it to replay a journal and to travel in
     * time, where the actions effects and feedbacks produced are already recorded. Allowed before
     * start and while started. Flags and errors as for dispatch. */
    fh_status (*reduce)(fh_instance *instance, const char *action_json, uint32_t *out_flags);

    /* [store-thread] The whole state as a JSON object, deterministic (snapshot -> restore ->
     * snapshot gives identical bytes). *out_state_json is owned by the instance. */
    fh_status (*snapshot)(fh_instance *instance, const char **out_state_json);

    /* [store-thread] Replace the state with state_json (borrowed), checked by the plugin.
     * Allowed before start and while started. On FH_ERR_BAD_STATE the state is unchanged. Any
     * input, however large or deeply nested, is refused or accepted, never a crash.
     * Restoring does not start effects; the host dispatches {"type":"restored"} when it applies. */
    fh_status (*restore)(fh_instance *instance, const char *state_json);

    /* [store-thread] The view of the current state: lines of UTF-8 text separated by '\n', with no
     * terminal control sequences. *out_view is owned by the instance. */
    fh_status (*render)(fh_instance *instance, const char **out_view);

    /* [store-thread] Stop: cancel every effect in flight. When stop returns the plugin makes no
     * further callback on this instance's fh_host. Only while started. */
    fh_status (*stop)(fh_instance *instance);

    /* [store-thread] Free the instance. Stops it first if it is still started. The instance
     * pointer and every string it returned are invalid afterwards. NULL is allowed. */
    void (*destroy)(fh_instance *instance);

    /* [store-thread] One line describing why the last call on this instance failed, or "" if it
     * did not. Owned by the instance, valid until the next call on it other than last_error:
     * last_error itself changes nothing, so it leaves the string of the call before it (a
     * snapshot, a view) valid, and two calls in a row return the same text. */
    const char *(*last_error)(const fh_instance *instance);

    /* [any-thread] Look up an optional plugin capability by versioned id. May be NULL itself;
     * returns NULL when the capability is absent. */
    const void *(*get_extension)(const char *id);
} fh_plugin;

/*
 * Host extension "fh.navigation/1": a feature emits navigation steps.
 *
 * A step says what happened ("a kitten was picked", "settings are done"), never where to go: the
 * host's coordinator looks the step up in the running flow and decides which feature to present.
 * Get it with host->get_extension(FH_EXT_NAVIGATION); NULL means the host does not navigate, and
 * the feature works without it. List the steps a feature emits in its manifest ("steps").
 */
#define FH_EXT_NAVIGATION "fh.navigation/1"

typedef struct fh_host_navigation {
    uint32_t struct_size; /* sizeof(fh_host_navigation) as the host was built */
    uint32_t reserved;    /* zero */

    /* [callback] Emit a step: a JSON object with a string "step" and any fields the flow may read,
     * e.g. {"step":"featurePicked","feature":"counter"}. step_json is borrowed for the call. Queued
     * behind the actions emitted before it; a step from a feature that is not presented is ignored
     * (and logged). Same threading as emit. */
    void (*emit_step)(const char *step_json);
} fh_host_navigation;

/*
 * Host extension "fh.clock/1": timers on the host's clock.
 *
 * A feature that paces itself (a step every 50 ms) asks the host for a timer instead of sleeping
 * on its own: in a normal run the host's clock is real time; under a test harness it is virtual
 * time the test advances, so a paced feature is tested without waiting. NULL when absent: the
 * feature then keeps time itself.
 */
#define FH_EXT_CLOCK "fh.clock/1"

typedef struct fh_host_clock {
    uint32_t struct_size; /* sizeof(fh_host_clock) as the host was built */
    uint32_t reserved;    /* zero */

    /* [callback] Queue actions_json for this instance once delay_ns nanoseconds have passed on the
     * host's clock. actions_json is one action object, or an array of actions queued together, in
     * order, when the timer fires; borrowed for the call. Timers due at the same time fire in the
     * order they were scheduled. Returns a timer id, never 0 (0: the JSON was not an object or an
     * array of objects). Until it fires or is cancelled, a timer counts as an effect in flight;
     * stop cancels every timer. Same threading as emit. */
    uint64_t (*schedule)(uint64_t delay_ns, const char *actions_json, fh_origin origin);

    /* [callback] Cancel a timer that has not fired yet; nothing happens otherwise. */
    void (*cancel)(uint64_t timer_id);
} fh_host_clock;

/*
 * Plugin extension "fh.render_options/1": the view drawn for where and why it is shown.
 *
 * render draws one view for every place. A plugin that can do better when it knows the width of
 * the terminal (bars that fit it) or that the whole view is asked for (every item of a list it
 * otherwise shows a window of) returns this struct from plugin->get_extension(FH_EXT_RENDER_OPTIONS).
 * The host then calls render_with where it has hints to give (at a terminal; for ':view') and
 * render elsewhere, so a view in a pipe never depends on the extension. NULL when absent: the host
 * calls render, and wraps lines wider than the terminal itself.
 */
#define FH_EXT_RENDER_OPTIONS "fh.render_options/1"

typedef struct fh_plugin_render_options {
    uint32_t struct_size; /* sizeof(fh_plugin_render_options) as the plugin was built */
    uint32_t reserved;    /* zero */

    /* [store-thread] The view, as render gives it, drawn with options_json (a JSON object;
     * borrowed): hints the plugin honours where it can, each optional:
     *   "columns"   integer >= 1: the width in cells of the terminal the view is drawn on; absent
     *               when there is none (a pipe). A SIGWINCH makes the host render again with the
     *               new width.
     *   "complete"  true: the whole view is asked for (the host's ':view'): no window or summary
     *               in place of a long list.
     * Unlike actions and configs, unknown members are ignored, not refused: hints only ever
     * improve a view that render already draws, and a later host may give more of them.
     * Same lifecycle, ownership and errors as render; *out_view is owned by the instance. */
    fh_status (*render_with)(fh_instance *instance, const char *options_json, const char **out_view);
} fh_plugin_render_options;

/*
 * Plugin extension "fh.structured_view/1": a view that carries images.
 *
 * render stays the view: a host without this extension, a pipe and a test see its text. A plugin
 * that also offers this extension (plugin->get_extension(FH_EXT_STRUCTURED_VIEW) not NULL) lets a
 * host that can draw pictures show them in place of their text. Optional: a host never needs it.
 *
 * The structured view is a JSON object with one member "items", an array in display order. Each
 * item is either a line of text or an image:
 *   {"items": [
 *     {"text": "Kittens — 2 images"},
 *     {"image": {"url": "https://cdn2.thecatapi.com/images/a1.jpg", "alt": "  1. https://...",
 *                "width": 500, "height": 375}},
 *     {"image": {"url": "file:///home/me/cat.png", "alt": "  2. file:///home/me/cat.png"}}]}
 * - "text": one line of UTF-8 text (no '\n'), no terminal control sequences.
 * - "image": "url" (http, https or file; required, non-empty), "alt" (required: the line shown in
 *   place of the image, by a host that cannot draw it or could not get it), and optionally
 *   "width" and "height", the preferred size in pixels (positive integers; the host keeps the
 *   aspect ratio and fits the picture to the terminal, and uses them for a placeholder while the
 *   image is on its way).
 * - Unknown members are ignored by the host (a later minor may add some).
 * Rule: the lines of the items, each image replaced by its "alt", joined with '\n', are exactly
 * what render returns for the same state. A host draws the text of a structured view it cannot
 * use, and validation checks the rule.
 */
#define FH_EXT_STRUCTURED_VIEW "fh.structured_view/1"

typedef struct fh_structured_view {
    uint32_t struct_size; /* sizeof(fh_structured_view) as the plugin was built */
    uint32_t reserved;    /* zero */

    /* [store-thread] The structured view of the current state (the JSON object above), under the
     * same lifecycle rules as render. *out_view_json is owned by the instance and valid until the
     * next call on it, as render's text is. */
    fh_status (*render_structured)(fh_instance *instance, const char **out_view_json);
} fh_structured_view;

/* The entry point. [any-thread] Returns the plugin's static descriptor, or NULL if the plugin
 * cannot run in this process (the host then reports the plugin as broken and calls nothing else).
 * The host reads struct_size, abi_major and abi_minor before anything else. */
typedef const fh_plugin *(*fh_plugin_entry_v1_fn)(void);
FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void);

/* True when a descriptor of this version can be used by a host built with this header. */
static inline int fh_abi_is_compatible(uint32_t abi_major, uint32_t abi_minor) {
    return abi_major == FH_ABI_MAJOR && abi_minor <= FH_ABI_MINOR;
}

/* Copies the struct at source (which begins with its uint32_t struct_size) into destination, a
 * reader's struct of destination_size bytes: min(struct_size, destination_size) bytes are copied and
 * the rest is zeroed, so a field the sender did not declare reads as 0/NULL. Returns the sender's
 * struct_size (a reader compares field ends with it to tell "absent" from "NULL"). */
static inline uint32_t fh_struct_read(const void *source, void *destination, size_t destination_size) {
    uint32_t declared;
    memcpy(&declared, source, sizeof declared);
    size_t count = declared < destination_size ? declared : destination_size;
    memset(destination, 0, destination_size);
    memcpy(destination, source, count);
    return declared;
}

#ifdef __cplusplus
}
#endif
