/* sdkfacts.h - a probed SDK record as text, and back.
 * SPDX-License-Identifier: MIT
 *
 * What ctk_sdk_load() found for one toolkit, kept as text so that a later
 * run can take it back without probing the tree again.  The text holds
 * every field of ctk_sdk_t but conf, and nothing else, in a form read in
 * one pass: a member per line, "<key> <value>\n", keys named as the fields
 * are, in the order sdk.h declares them, after "sdkfacts 2" (the form; a
 * text of another form does not load).  A string is "-" for NULL, else its
 * length in bytes, ':' and its bytes as they are (any but NUL, newlines
 * included: nothing is escaped).  Numbers are decimal, '-' for a negative
 * one, without a needless zero.  The version is "version <major> <minor>
 * <patch> <source>" (source its ctk_version_source_t number), then one
 * member each for its arrays: "version.path", "version.passed_over" and
 * "version.out_of_step".  A list is "<key> <count>", then count lines of
 * two blanks and an item; so are libs, an entry "<name> <libdir> <link>"
 * (its label, description and math come from sdk.c's table on load,
 * ctk_sdk_lib_describe, as ctk_sdk_load() fills them), and versioned, an
 * entry "<name> <file>" (name one of ctk_sdk_link_name()).  A library's
 * name and a list's item are never "-".  Nothing follows the last member's
 * newline.
 *
 * The same record always gives the same bytes, and two records give the
 * same bytes exactly when ctk_sdkfacts_equal() says they hold the same
 * facts (for records whose libs and versioned name entries of sdk.c's
 * tables, as every loaded record's do).  Each record has one text: any
 * other spelling of it does not load.
 */
#ifndef CTK_SDKFACTS_H
#define CTK_SDKFACTS_H

#include "error.h"
#include "sdk.h"

#include <stdbool.h>
#include <stddef.h>

/* The text of s's facts (every field of ctk_sdk_t but conf), ending in
 * a newline; caller frees.  NULL only when out of memory (CTK_E_NOMEM). */
char *ctk_sdkfacts_dump(const ctk_sdk_t *s, ctk_error_t *err);

/* The record text[0..len) describes, as ctk_sdk_load() would have made it
 * for an SDK of conf: conf is borrowed into ->conf (it must outlive the
 * record), everything else is owned by the record as ctk_sdk_load()'s is.
 * Caller frees with ctk_sdk_free().  NULL with CTK_E_IO ("SDK facts:
 * <member>: <what>") when the text is not such a text, spelt as dump
 * spells it: another form, a member missing, out of its order or one
 * more, a value of another kind, a blank or a zero too many, "\r\n", a
 * string's length past the text or short of its bytes, a string holding
 * NUL, "-" for a library's name or a list's item, a count more or fewer
 * than its items, a version.path, passed_over or out_of_step too long for
 * its array, a version source out of range, a number out of int's range,
 * a library name not in sdk.c's tables, anything after the last member.
 * NULL with CTK_E_NOMEM when out of memory.  Only the text's shape is
 * checked: the paths it names are not looked at. */
ctk_sdk_t *ctk_sdkfacts_load(const ctk_sdk_conf_t *conf, const char *text, size_t len, ctk_error_t *err);

/* Whether a and b hold the same facts: every field but conf, strings by
 * content (NULL differs from ""), lists item by item in order, libs and
 * versioned entry by entry (label, description and math included). */
bool ctk_sdkfacts_equal(const ctk_sdk_t *a, const ctk_sdk_t *b);

#endif
