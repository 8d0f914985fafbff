/* jsonload.h - jansson parsing that tells running out of memory from bad JSON.
 * SPDX-License-Identifier: MIT
 *
 * jansson's parser may report a failed allocation as a syntax error, or
 * succeed with part of the document missing; report.c wraps jansson's
 * malloc while it parses, so that either case is CTK_E_NOMEM.  For the
 * modules that read JSON text (report.c, report_html.c, sdkfacts.c): the
 * rest of ctkgen never sees a json_t.
 */
#ifndef CTK_JSONLOAD_H
#define CTK_JSONLOAD_H

#include "error.h"

#include <jansson.h>
#include <stddef.h>

/* text[0..len) as JSON with duplicate keys refused; caller decrefs.  NULL
 * with CTK_E_NOMEM, or CTK_E_JSON "<what> is not valid JSON: ..." at
 * source:line (line > 0: that line, else jansson's; col0 added to its
 * column). */
json_t *ctk_json_load(const char *text, size_t len, const char *source, int line, int col0, const char *what,
                      ctk_error_t *err);

#endif
