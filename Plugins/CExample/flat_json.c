/* flat_json.c - see flat_json.h. */
#include "flat_json.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const unsigned char *start;
    const unsigned char *at;
    char *error;
    size_t error_size;
} reader;

static int fail(reader *r, const char *format, ...) {
    char reason[160];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(reason, sizeof reason, format, arguments);
    va_end(arguments);
    snprintf(r->error, r->error_size, "%s at byte %ld", reason, (long)(r->at - r->start));
    return -1;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static void skip_space(reader *r) {
    while (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r') r->at++;
}

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 if it is not valid UTF-8
 * (overlong forms, surrogates and code points above U+10FFFF are not). Stops at a NUL. */
static int utf8_length(const unsigned char *p) {
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        unsigned char low = p[0] == 0xE0 ? 0xA0 : 0x80, high = p[0] == 0xED ? 0x9F : 0xBF;
        return p[1] >= low && p[1] <= high && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        unsigned char low = p[0] == 0xF0 ? 0x90 : 0x80, high = p[0] == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= low && p[1] <= high && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* Appends code point to out as UTF-8; returns the bytes written, or 0 if they do not fit. */
static size_t put_utf8(unsigned long code, char *out, size_t room) {
    unsigned char bytes[4];
    size_t count;
    if (code < 0x80) {
        bytes[0] = (unsigned char)code;
        count = 1;
    } else if (code < 0x800) {
        bytes[0] = (unsigned char)(0xC0 | code >> 6);
        bytes[1] = (unsigned char)(0x80 | (code & 0x3F));
        count = 2;
    } else if (code < 0x10000) {
        bytes[0] = (unsigned char)(0xE0 | code >> 12);
        bytes[1] = (unsigned char)(0x80 | (code >> 6 & 0x3F));
        bytes[2] = (unsigned char)(0x80 | (code & 0x3F));
        count = 3;
    } else {
        bytes[0] = (unsigned char)(0xF0 | code >> 18);
        bytes[1] = (unsigned char)(0x80 | (code >> 12 & 0x3F));
        bytes[2] = (unsigned char)(0x80 | (code >> 6 & 0x3F));
        bytes[3] = (unsigned char)(0x80 | (code & 0x3F));
        count = 4;
    }
    if (count > room) return 0;
    memcpy(out, bytes, count);
    return count;
}

static int read_hex4(reader *r, unsigned long *value) {
    *value = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = *r->at;
        int digit = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
        if (digit < 0) return fail(r, "expected 4 hex digits after \\u");
        *value = *value << 4 | (unsigned long)digit;
        r->at++;
    }
    return 0;
}

/* Reads a string literal (r->at on its opening quote) into out, decoded, NUL-terminated. */
static int read_string(reader *r, char *out, size_t size) {
    size_t length = 0;
    r->at++;
    for (;;) {
        unsigned char c = *r->at;
        char decoded[4];
        size_t count = 1;
        if (c == '"') {
            r->at++;
            out[length] = '\0';
            return 0;
        }
        if (c == '\0') return fail(r, "unterminated string");
        if (c < 0x20) return fail(r, "control character 0x%02X in a string", c);
        if (c == '\\') {
            r->at++;
            unsigned long code;
            switch (*r->at++) {
            case '"': decoded[0] = '"'; break;
            case '\\': decoded[0] = '\\'; break;
            case '/': decoded[0] = '/'; break;
            case 'b': decoded[0] = '\b'; break;
            case 'f': decoded[0] = '\f'; break;
            case 'n': decoded[0] = '\n'; break;
            case 'r': decoded[0] = '\r'; break;
            case 't': decoded[0] = '\t'; break;
            case 'u':
                if (read_hex4(r, &code) < 0) return -1;
                if (code >= 0xDC00 && code <= 0xDFFF) return fail(r, "lone low surrogate \\u%04lX", code);
                if (code >= 0xD800 && code <= 0xDBFF) {
                    unsigned long low;
                    if (r->at[0] != '\\' || r->at[1] != 'u') return fail(r, "lone high surrogate \\u%04lX", code);
                    r->at += 2;
                    if (read_hex4(r, &low) < 0) return -1;
                    if (low < 0xDC00 || low > 0xDFFF) return fail(r, "high surrogate without its low half");
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                }
                if (code == 0) return fail(r, "\\u0000 is not allowed");
                count = put_utf8(code, decoded, sizeof decoded);
                break;
            default:
                r->at--;
                return fail(r, "invalid escape");
            }
            if (length + count >= size) return fail(r, "string longer than %zu bytes", size - 1);
            memcpy(out + length, decoded, count);
            length += count;
            continue;
        }
        count = (size_t)utf8_length(r->at);
        if (count == 0) return fail(r, "invalid UTF-8");
        if (length + count >= size) return fail(r, "string longer than %zu bytes", size - 1);
        memcpy(out + length, r->at, count);
        length += count;
        r->at += count;
    }
}

/* Reads a number. Integers (no fraction, no exponent) are kept exactly or refused if they do not
 * fit a long long; other numbers keep only their text. */
static int read_number(reader *r, flat_member *member) {
    const unsigned char *begin = r->at;
    int negative = *r->at == '-';
    if (negative) r->at++;
    if (*r->at == '0') {
        r->at++;
    } else if (*r->at >= '1' && *r->at <= '9') {
        while (is_digit(*r->at)) r->at++;
    } else {
        return fail(r, "invalid number");
    }
    int integral = 1;
    if (*r->at == '.') {
        integral = 0;
        r->at++;
        if (!is_digit(*r->at)) return fail(r, "expected a digit after '.'");
        while (is_digit(*r->at)) r->at++;
    }
    if (*r->at == 'e' || *r->at == 'E') {
        integral = 0;
        r->at++;
        if (*r->at == '+' || *r->at == '-') r->at++;
        if (!is_digit(*r->at)) return fail(r, "expected a digit in the exponent");
        while (is_digit(*r->at)) r->at++;
    }
    size_t length = (size_t)(r->at - begin);
    if (length >= sizeof member->text) return fail(r, "number longer than %zu characters", sizeof member->text - 1);
    memcpy(member->text, begin, length);
    member->text[length] = '\0';
    member->kind = integral ? FLAT_INTEGER : FLAT_NUMBER;
    if (!integral) return 0;
    /* Accumulate as a negative number: its range is one larger than the positive one. */
    long long value = 0;
    for (const unsigned char *digit = begin + negative; digit < r->at; digit++) {
        int d = *digit - '0';
        if (value < (LLONG_MIN + d) / 10) return fail(r, "integer %s is out of range", member->text);
        value = value * 10 - d;
    }
    if (!negative && value == LLONG_MIN) return fail(r, "integer %s is out of range", member->text);
    member->integer = negative ? value : -value;
    return 0;
}

static int read_literal(reader *r, const char *word) {
    size_t length = strlen(word);
    if (strncmp((const char *)r->at, word, length) != 0) return fail(r, "invalid value");
    r->at += length;
    return 0;
}

static int read_value(reader *r, flat_member *member) {
    switch (*r->at) {
    case '"':
        member->kind = FLAT_STRING;
        return read_string(r, member->text, sizeof member->text);
    case 't':
        member->kind = FLAT_BOOL;
        member->integer = 1;
        return read_literal(r, "true");
    case 'f':
        member->kind = FLAT_BOOL;
        member->integer = 0;
        return read_literal(r, "false");
    case 'n':
        member->kind = FLAT_NULL;
        return read_literal(r, "null");
    case '{':
    case '[':
        return fail(r, "nested arrays and objects are not accepted");
    case '\0':
        return fail(r, "expected a value, got the end of the text");
    default:
        return read_number(r, member);
    }
}

int flat_json_read(const char *json, flat_object *object, char *error, size_t error_size) {
    reader r = {(const unsigned char *)json, (const unsigned char *)json, error, error_size};
    object->count = 0;
    skip_space(&r);
    if (*r.at != '{') return fail(&r, *r.at ? "expected a JSON object" : "expected a JSON object, got nothing");
    r.at++;
    skip_space(&r);
    if (*r.at == '}') {
        r.at++;
    } else {
        for (;;) {
            if (object->count == FLAT_MAX_MEMBERS) return fail(&r, "more than %d members", FLAT_MAX_MEMBERS);
            flat_member *member = &object->members[object->count];
            memset(member, 0, sizeof *member);
            skip_space(&r);
            if (*r.at != '"') return fail(&r, "expected a member name in quotes");
            if (read_string(&r, member->key, sizeof member->key) < 0) return -1;
            if (flat_json_find(object, member->key)) {
                char quoted[FLAT_MAX_KEY * 2];
                return fail(&r, "member %s appears twice", flat_json_quote(member->key, quoted, sizeof quoted));
            }
            skip_space(&r);
            if (*r.at != ':') return fail(&r, "expected ':' after a member name");
            r.at++;
            skip_space(&r);
            if (read_value(&r, member) < 0) return -1;
            object->count++;
            skip_space(&r);
            if (*r.at == ',') {
                r.at++;
                continue;
            }
            if (*r.at == '}') {
                r.at++;
                break;
            }
            return fail(&r, "expected ',' or '}'");
        }
    }
    skip_space(&r);
    if (*r.at != '\0') return fail(&r, "unexpected text after the object");
    return 0;
}

const flat_member *flat_json_find(const flat_object *object, const char *key) {
    for (int i = 0; i < object->count; i++) {
        if (strcmp(object->members[i].key, key) == 0) return &object->members[i];
    }
    return NULL;
}

const char *flat_json_quote(const char *text, char *out, size_t size) {
    size_t length = 0;
    if (size < 6) {
        if (size > 0) out[0] = '\0';
        return out;
    }
    out[length++] = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        char piece[8];
        size_t count;
        if (*c == '"' || *c == '\\') {
            piece[0] = '\\';
            piece[1] = (char)*c;
            count = 2;
        } else if (*c < 0x20 || *c == 0x7F) {
            count = (size_t)snprintf(piece, sizeof piece, "\\u%04X", *c);
        } else {
            /* Keep a multi-byte character whole, so a cut never splits it. */
            count = (size_t)utf8_length(c);
            if (count == 0) count = 1;
            memcpy(piece, c, count);
            c += count - 1;
        }
        if (length + count + 2 > size - 4) {
            memcpy(out + length, "...", 3);
            length += 3;
            break;
        }
        memcpy(out + length, piece, count);
        length += count;
    }
    out[length++] = '"';
    out[length] = '\0';
    return out;
}
