/* probe_json.h - JSON string output shared by the probes.
 * SPDX-License-Identifier: MIT
 *
 * Static functions in a header, so each probe stays one compile command:
 * host_probe.c (any C99 compiler, libc only) and probe.cu (nvcc, as C++)
 * both include it.  validate writes it next to them in the build dir.
 */
#ifndef CTK_PROBE_JSON_H
#define CTK_PROBE_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence of 2-4 bytes at p, or 0 (an
 * ASCII byte, a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF, or cut short by the terminating NUL). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned long cp;
    size_t n, i;

    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        cp = p[0] & 0x1fu;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        cp = p[0] & 0x0fu;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800ul) || (n == 4 && (cp < 0x10000ul || cp > 0x10fffful)) ||
        (cp >= 0xd800ul && cp <= 0xdffful))
        return 0;
    return n;
}

/* Print s as a JSON string.  Quote and backslash are escaped, control
 * characters (and DEL) become \u00XX, so the report stays one line; a byte
 * that is not part of well-formed UTF-8 (a path may hold any bytes) becomes
 * U+FFFD, so that a strict parser still accepts the line. */
static void put_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    putchar('"');
    while (*p) {
        size_t n;

        if (*p == '"' || *p == '\\') {
            putchar('\\');
            putchar(*p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            printf("\\u%04x", (unsigned)*p++);
        } else if (*p < 0x80) {
            putchar(*p++);
        } else if ((n = utf8_len(p)) != 0) {
            fwrite(p, 1, n, stdout);
            p += n;
        } else {
            fputs("\\ufffd", stdout);
            p++;
        }
    }
    putchar('"');
}

#endif
