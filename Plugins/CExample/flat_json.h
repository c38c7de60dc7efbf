/*
 * flat_json.h - a small, strict reader for flat JSON objects, and a quoting writer.
 *
 * "Flat": every member value is a string, a number, true, false or null. A nested array or
 * object is refused, which is all the thermostat needs (its actions and its state are flat) and
 * keeps the reader free of recursion: no input, however deep or large, can exhaust the stack.
 *
 * Private to the plugin: every function is hidden, so the library exports only its entry point.
 */
#pragma once

#include <stddef.h>

#define FLAT_JSON_HIDDEN __attribute__((visibility("hidden")))

enum {
    FLAT_MAX_MEMBERS = 8,  /* members per object */
    FLAT_MAX_KEY = 32,     /* bytes of a member name, with its NUL */
    FLAT_MAX_TEXT = 64,    /* bytes of a string or number value, with its NUL */
};

typedef enum { FLAT_STRING, FLAT_INTEGER, FLAT_NUMBER, FLAT_BOOL, FLAT_NULL } flat_kind;

typedef struct {
    char key[FLAT_MAX_KEY];
    flat_kind kind;
    char text[FLAT_MAX_TEXT]; /* FLAT_STRING: the decoded UTF-8; FLAT_INTEGER, FLAT_NUMBER: as written */
    long long integer;        /* FLAT_INTEGER: the value; FLAT_BOOL: 0 or 1 */
} flat_member;

typedef struct {
    flat_member members[FLAT_MAX_MEMBERS];
    int count;
} flat_object;

/* Reads json (NUL-terminated) into object. Returns 0, or -1 with a one-line reason in error.
 * Strict: RFC 8259 syntax, valid UTF-8, no duplicate names, nothing after the object. */
FLAT_JSON_HIDDEN int flat_json_read(const char *json, flat_object *object, char *error, size_t error_size);

/* The member named key, or NULL. */
FLAT_JSON_HIDDEN const flat_member *flat_json_find(const flat_object *object, const char *key);

/* Writes text as a JSON string literal (quotes and escapes) into out, cut short with "..." when it
 * does not fit. For quoting an offending value in an error message. Returns out. */
FLAT_JSON_HIDDEN const char *flat_json_quote(const char *text, char *out, size_t size);
