/* sdkfacts.h - a probed SDK record as JSON text, and back.
 * SPDX-License-Identifier: MIT
 *
 * What ctk_sdk_load() found for one toolkit, kept as text so that a later
 * run can take it back without probing the tree again.  The text holds
 * every field of ctk_sdk_t but conf, and nothing else: one JSON object
 * whose members are named as the fields are, in the order sdk.h declares
 * them, after "sdkfacts": 1 (the form; a text of another form does not
 * load).  Strings are JSON strings, null for NULL; a string that is not
 * well-formed UTF-8 (a path is any bytes but NUL) is an object
 * {"hex": "<its bytes, two lowercase hex digits each>"}, and only such a
 * string, so each record has one text.  version.source is its number
 * (ctk_version_source_t).  A library of libs[] is written as its name, its
 * libdir and its link: its label, description and math come from sdk.c's
 * table on load (ctk_sdk_lib_describe), as ctk_sdk_load() fills them; a
 * library of versioned[] as its name (one of ctk_sdk_link_name()) and its
 * file.
 *
 * The same record always gives the same bytes, and two records give the
 * same bytes exactly when ctk_sdkfacts_equal() says they hold the same
 * facts (for records whose libs and versioned name entries of sdk.c's
 * tables, as every loaded record's do).
 */
#ifndef CTK_SDKFACTS_H
#define CTK_SDKFACTS_H

#include "error.h"
#include "sdk.h"

#include <stdbool.h>
#include <stddef.h>

/* The JSON object text of s's facts (every field of ctk_sdk_t but conf),
 * ending in a newline; caller frees.  NULL only when out of memory
 * (CTK_E_NOMEM). */
char *ctk_sdkfacts_dump(const ctk_sdk_t *s, ctk_error_t *err);

/* The record text[0..len) describes, as ctk_sdk_load() would have made it
 * for an SDK of conf: conf is borrowed into ->conf (it must outlive the
 * record), everything else is owned by the record as ctk_sdk_load()'s is.
 * Caller frees with ctk_sdk_free().  NULL with CTK_E_IO when the text is
 * not such an object: not JSON, a member missing, one more than the form
 * has, a value of another type, a string holding NUL, a hex string that
 * is not one, a version.path, passed_over or out_of_step too long for its
 * array, a version source out of range, an integer out of int's range, a
 * list that is not of strings, a library name not in sdk.c's tables.  NULL
 * with CTK_E_NOMEM when out of memory.  Only the text's shape is checked:
 * the paths it names are not looked at. */
ctk_sdk_t *ctk_sdkfacts_load(const ctk_sdk_conf_t *conf, const char *text, size_t len, ctk_error_t *err);

/* Whether a and b hold the same facts: every field but conf, strings by
 * content (NULL differs from ""), lists item by item in order, libs and
 * versioned entry by entry (label, description and math included). */
bool ctk_sdkfacts_equal(const ctk_sdk_t *a, const ctk_sdk_t *b);

#endif
