/// The files of a C plugin made by `host new --lang c`, as string literals so the host binary
/// needs no resource files.
enum ScaffoldC {
  static func source(_ s: Scaffold) -> String {
    #"""
    /*
     * \#(s.name).c - the '\#(s.name)' feature: a running total you add to and reset.
     *
     * Made by `host new \#(s.name) --lang c`; make it yours. It implements the FeatureHost plugin ABI
     * with nothing but feature_abi.h: one exported function, fh_plugin_entry_v1, returning the
     * descriptor; actions and the state are JSON objects:
     *   actions  {"type":"add","amount":3}  {"type":"reset"}  and the lifecycle {"type":"created"},
     *            {"type":"restored"} the host sends at start
     *   state    {"total":3}
     * Build with `make` (see the Makefile: only the entry symbol is exported), check with `make check`.
     *
     * Threading: the host serializes every call on one instance, so an instance needs no lock. This
     * feature has no effects, so it never calls the host back; see emit, effect_began and
     * effect_ended in feature_abi.h for one that does.
     */
    #include "feature_abi.h"

    #include <ctype.h>
    #include <limits.h>
    #include <stdarg.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    static const char manifest[] =
        "{\"id\":\"\#(s.name)\",\"name\":\"\#(s.typeName)\",\"version\":\"0.1.0\","
        "\"description\":\"A running total: add amounts to it, reset it.\","
        "\"actions\":["
        "{\"type\":\"add\",\"help\":\"Add an amount to the total.\",\"arguments\":["
        "{\"name\":\"amount\",\"type\":\"integer\",\"help\":\"how much to add (may be negative)\",\"required\":true}]},"
        "{\"type\":\"reset\",\"help\":\"Set the total back to zero.\",\"arguments\":[]}]}";

    enum phase { PHASE_CREATED, PHASE_STARTED, PHASE_STOPPED, PHASE_FAILED };

    struct fh_instance {
        const fh_host *host; /* owned by the host, valid until destroy returns */
        enum phase phase;
        int lifecycle_sent; /* dispatch took created or restored: it comes first, and once */
        long long total;
        char error[256];  /* last_error: "" after a call that succeeded */
        char output[128]; /* what snapshot and render return, valid until the next call */
    };

    /* ---- A small strict JSON reader: one flat object of strings and integers. ---- */

    typedef struct json_reader {
        const char *at;
        char error[128];
    } json_reader;

    static int json_fail(json_reader *r, const char *message) {
        snprintf(r->error, sizeof r->error, "%s", message);
        return 0;
    }

    static void json_skip_space(json_reader *r) {
        while (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r') r->at++;
    }

    /* Reads a string into out (NUL-terminated, at most cap - 1 bytes). */
    static int json_read_string(json_reader *r, char *out, size_t cap) {
        size_t length = 0;
        if (*r->at != '"') return json_fail(r, "expected a string");
        r->at++;
        for (;;) {
            unsigned char c = (unsigned char)*r->at;
            if (c == '\0') return json_fail(r, "unterminated string");
            if (c < 0x20) return json_fail(r, "control character in a string");
            r->at++;
            if (c == '"') break;
            if (c == '\\') {
                char escape = *r->at;
                if (escape == '\0') return json_fail(r, "unterminated string");
                r->at++;
                switch (escape) {
                case '"': case '\\': case '/': c = (unsigned char)escape; break;
                case 'b': c = '\b'; break;
                case 'f': c = '\f'; break;
                case 'n': c = '\n'; break;
                case 'r': c = '\r'; break;
                case 't': c = '\t'; break;
                case 'u':
                    /* Checked, not decoded: the names this feature compares are plain ASCII. */
                    for (int i = 0; i < 4; i++) {
                        if (!isxdigit((unsigned char)r->at[i])) return json_fail(r, "bad \\u escape");
                    }
                    r->at += 4;
                    c = '?';
                    break;
                default: return json_fail(r, "bad escape in a string");
                }
            }
            if (length + 1 >= cap) return json_fail(r, "string too long");
            out[length++] = (char)c;
        }
        out[length] = '\0';
        return 1;
    }

    /* Reads an integer that fits in a long long; fractions and exponents are refused. */
    static int json_read_integer(json_reader *r, long long *out) {
        int negative = 0;
        unsigned long long value = 0;
        if (*r->at == '-') { negative = 1; r->at++; }
        if (!isdigit((unsigned char)*r->at)) return json_fail(r, "expected an integer");
        if (*r->at == '0' && isdigit((unsigned char)r->at[1])) return json_fail(r, "leading zero in a number");
        unsigned long long limit = negative ? (unsigned long long)LLONG_MAX + 1u : (unsigned long long)LLONG_MAX;
        while (isdigit((unsigned char)*r->at)) {
            unsigned digit = (unsigned)(*r->at - '0');
            if (value > (limit - digit) / 10u) return json_fail(r, "integer out of range");
            value = value * 10u + digit;
            r->at++;
        }
        if (*r->at == '.' || *r->at == 'e' || *r->at == 'E') return json_fail(r, "expected an integer, got a fraction");
        if (!negative) *out = (long long)value;
        else if (value == limit) *out = LLONG_MIN;
        else *out = -(long long)value;
        return 1;
    }

    /* Reads one whole JSON object; member() reads each value. Nothing may follow the object. */
    typedef int (*json_member_fn)(json_reader *r, const char *key, void *context);

    static int json_read_object(json_reader *r, json_member_fn member, void *context) {
        json_skip_space(r);
        if (*r->at != '{') return json_fail(r, "expected a JSON object");
        r->at++;
        json_skip_space(r);
        if (*r->at == '}') {
            r->at++;
        } else {
            for (;;) {
                char key[64];
                json_skip_space(r);
                if (!json_read_string(r, key, sizeof key)) return 0;
                json_skip_space(r);
                if (*r->at != ':') return json_fail(r, "expected ':' after a member name");
                r->at++;
                json_skip_space(r);
                if (!member(r, key, context)) return 0;
                json_skip_space(r);
                if (*r->at == ',') { r->at++; continue; }
                if (*r->at == '}') { r->at++; break; }
                return json_fail(r, "expected ',' or '}'");
            }
        }
        json_skip_space(r);
        if (*r->at != '\0') return json_fail(r, "unexpected text after the object");
        return 1;
    }

    /* ---- The feature ---- */

    struct action {
        char type[32];
        int has_type;
        long long amount;
        int has_amount;
    };

    static int read_action_member(json_reader *r, const char *key, void *context) {
        struct action *action = context;
        if (strcmp(key, "type") == 0 && !action->has_type) {
            action->has_type = 1;
            return json_read_string(r, action->type, sizeof action->type);
        }
        if (strcmp(key, "amount") == 0 && !action->has_amount) {
            action->has_amount = 1;
            return json_read_integer(r, &action->amount);
        }
        snprintf(r->error, sizeof r->error, "unexpected or repeated member \"%.40s\"", key);
        return 0;
    }

    struct state {
        long long total;
        int has_total;
    };

    static int read_state_member(json_reader *r, const char *key, void *context) {
        struct state *state = context;
        if (strcmp(key, "total") == 0 && !state->has_total) {
            state->has_total = 1;
            return json_read_integer(r, &state->total);
        }
        snprintf(r->error, sizeof r->error, "unexpected or repeated member \"%.40s\"", key);
        return 0;
    }

    static int read_config_member(json_reader *r, const char *key, void *context) {
        (void)context;
        snprintf(r->error, sizeof r->error, "unknown setting \"%.40s\" (this feature has none)", key);
        return 0;
    }

    static fh_status fail(fh_instance *instance, fh_status status, const char *format, ...) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(instance->error, sizeof instance->error, format, arguments);
        va_end(arguments);
        return status;
    }

    static fh_status succeed(fh_instance *instance) {
        instance->error[0] = '\0';
        return FH_OK;
    }

    static fh_status lifecycle_error(fh_instance *instance, const char *call) {
        static const char *const names[] = {"created", "started", "stopped", "failed"};
        return fail(instance, FH_ERR_LIFECYCLE, "%s is not allowed on an instance that is %s", call,
                    names[instance->phase]);
    }

    /* The reducer: applies one action to the total, or refuses it and changes nothing. */
    static fh_status apply(fh_instance *instance, const char *json, uint32_t *out_flags, int dispatching) {
        struct action action = {0};
        json_reader reader = {json, ""};
        if (json == NULL) return fail(instance, FH_ERR_BAD_ACTION, "action JSON is NULL");
        if (!json_read_object(&reader, read_action_member, &action)) {
            return fail(instance, FH_ERR_BAD_ACTION, "action is not valid: %s", reader.error);
        }
        if (!action.has_type) return fail(instance, FH_ERR_BAD_ACTION, "action needs a string \"type\"");
        /* dispatch takes the lifecycle action first and once; reduce (a replay) takes any order. */
        int lifecycle = strcmp(action.type, "created") == 0 || strcmp(action.type, "restored") == 0;
        if (dispatching && lifecycle == instance->lifecycle_sent) {
            return fail(instance, FH_ERR_LIFECYCLE,
                        lifecycle ? "'%s' came after the lifecycle action; an instance takes one"
                                  : "'%s' came before the lifecycle action (created or restored)",
                        action.type);
        }
        long long before = instance->total;
        if (strcmp(action.type, "add") == 0) {
            if (!action.has_amount) return fail(instance, FH_ERR_BAD_ACTION, "'add' needs an integer \"amount\"");
            long long sum;
            if (__builtin_add_overflow(instance->total, action.amount, &sum)) {
                return fail(instance, FH_ERR_BAD_ACTION, "adding %lld to %lld would overflow", action.amount,
                            instance->total);
            }
            instance->total = sum;
        } else if (action.has_amount) {
            return fail(instance, FH_ERR_BAD_ACTION, "'%s' takes no \"amount\"", action.type);
        } else if (strcmp(action.type, "reset") == 0 || strcmp(action.type, "created") == 0) {
            instance->total = 0;
        } else if (strcmp(action.type, "restored") != 0) {
            return fail(instance, FH_ERR_BAD_ACTION, "unknown action type '%s' for \#(s.name)", action.type);
        }
        if (out_flags) *out_flags = instance->total != before ? FH_DISPATCH_STATE_CHANGED : 0u;
        if (dispatching && lifecycle) instance->lifecycle_sent = 1;
        return succeed(instance);
    }

    /* ---- The ABI ---- */

    static fh_status plugin_create(const fh_host *host, const char *config_json, fh_instance **out_instance) {
        if (out_instance == NULL) return FH_ERR_INTERNAL;
        fh_instance *instance = calloc(1, sizeof *instance);
        *out_instance = instance;
        if (instance == NULL) return FH_ERR_INTERNAL;
        instance->host = host;
        if (config_json == NULL) {
            instance->phase = PHASE_FAILED;
            return fail(instance, FH_ERR_BAD_CONFIG, "config JSON is NULL; pass {} for the defaults");
        }
        json_reader reader = {config_json, ""};
        if (!json_read_object(&reader, read_config_member, NULL)) {
            instance->phase = PHASE_FAILED;
            return fail(instance, FH_ERR_BAD_CONFIG, "config refused: %s", reader.error);
        }
        instance->phase = PHASE_CREATED;
        return succeed(instance);
    }

    static fh_status plugin_start(fh_instance *instance) {
        if (instance->phase != PHASE_CREATED) return lifecycle_error(instance, "start");
        instance->phase = PHASE_STARTED;
        return succeed(instance);
    }

    static fh_status plugin_dispatch(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
        if (instance->phase != PHASE_STARTED) return lifecycle_error(instance, "dispatch");
        return apply(instance, action_json, out_flags, 1);
    }

    static fh_status plugin_reduce(fh_instance *instance, const char *action_json, uint32_t *out_flags) {
        if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
            return lifecycle_error(instance, "reduce");
        }
        return apply(instance, action_json, out_flags, 0);
    }

    static fh_status plugin_snapshot(fh_instance *instance, const char **out_state_json) {
        if (instance->phase == PHASE_FAILED) return lifecycle_error(instance, "snapshot");
        snprintf(instance->output, sizeof instance->output, "{\"total\":%lld}", instance->total);
        if (out_state_json) *out_state_json = instance->output;
        return succeed(instance);
    }

    static fh_status plugin_restore(fh_instance *instance, const char *state_json) {
        if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
            return lifecycle_error(instance, "restore");
        }
        struct state state = {0};
        json_reader reader = {state_json ? state_json : "", ""};
        if (!json_read_object(&reader, read_state_member, &state)) {
            return fail(instance, FH_ERR_BAD_STATE, "state is not valid: %s", reader.error);
        }
        if (!state.has_total) return fail(instance, FH_ERR_BAD_STATE, "state needs an integer \"total\"");
        instance->total = state.total;
        return succeed(instance);
    }

    static fh_status plugin_render(fh_instance *instance, const char **out_view) {
        if (instance->phase == PHASE_FAILED) return lifecycle_error(instance, "render");
        snprintf(instance->output, sizeof instance->output, "\#(s.typeName)\n  total: %lld", instance->total);
        if (out_view) *out_view = instance->output;
        return succeed(instance);
    }

    static fh_status plugin_stop(fh_instance *instance) {
        if (instance->phase != PHASE_STARTED) return lifecycle_error(instance, "stop");
        instance->phase = PHASE_STOPPED;
        return succeed(instance);
    }

    static void plugin_destroy(fh_instance *instance) { free(instance); }

    static const char *plugin_last_error(const fh_instance *instance) {
        return instance ? instance->error : "";
    }

    static const fh_plugin descriptor = {
        .struct_size = sizeof(fh_plugin),
        .abi_major = FH_ABI_MAJOR,
        .abi_minor = 1, /* keeps the rules of ABI 1.1 (feature_abi.h's ChangeLog) */
        .reserved = 0,
        .manifest_json = manifest,
        .create = plugin_create,
        .start = plugin_start,
        .dispatch = plugin_dispatch,
        .reduce = plugin_reduce,
        .snapshot = plugin_snapshot,
        .restore = plugin_restore,
        .render = plugin_render,
        .stop = plugin_stop,
        .destroy = plugin_destroy,
        .last_error = plugin_last_error,
        .get_extension = NULL,
    };

    FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) { return &descriptor; }

    """#
  }

  static let exports = """
    /* Exports only the entry symbol: everything else in the plugin stays private. */
    {
      global: fh_plugin_entry_v1;
      local: *;
    };

    """

  static func makefile(_ s: Scaffold) -> String {
    // Recipe lines must start with a tab.
    """
    # Builds lib\(s.name).so from \(s.name).c against the FeatureHost header alone, exporting only
    # fh_plugin_entry_v1 (exports.map). `make check` runs the transcript through the host.
    # The FeatureHost checkout, relative to this folder; `make FEATUREHOST=DIR` (or the
    # environment) names another.
    FEATUREHOST ?= \(s.recordedFeatureHost)
    HOST ?= $(FEATUREHOST)/host
    CFLAGS ?= -O2 -Wall -Wextra -Werror
    LIB = lib\(s.name).so

    $(LIB): \(s.name).c exports.map
    \t$(CC) -std=c11 -shared -fPIC $(CFLAGS) -I$(FEATUREHOST)/Sources/FeatureABI/include \\
    \t  -Wl,--version-script=exports.map -o $@ \(s.name).c
    \t@# The host refuses plugin files that others may write to.
    \tchmod go-w $@

    check: $(LIB)
    \t$(HOST) --plugins . check \(s.name).transcript

    clean:
    \trm -f $(LIB)

    .PHONY: check clean

    """
  }

  static func transcript(_ s: Scaffold) -> String {
    s.transcript(
      checkedBy: "make check",
      more: #"""
        > {"type":"add","amount":1.5}
        ! error: \#(s.name) refused the user action {"amount":1.5,"type":"add"}: action is not valid: expected an integer, got a fraction
        ! help: the state is unchanged; ':help' lists the actions and their arguments

        """#)
  }

  static func readme(_ s: Scaffold) -> String {
    s.readme(
      madeBy: "in C, made by `host new \(s.name) --lang c`",
      body: #"""
        The build is one command (see the Makefile):

            cc -std=c11 -shared -fPIC -O2 -Wall -Wextra -Werror -I\#(s.recordedFeatureHost)/Sources/FeatureABI/include \
              -Wl,--version-script=exports.map -o lib\#(s.name).so \#(s.name).c


        """#)
  }
}
