/* lintsuggest.h - what --fix-suggest keeps of a module beyond the toolkit paths.
 * SPDX-License-Identifier: MIT
 *
 * The site config lint suggests makes `ctkgen generate` write a correct
 * module for the toolkit a file points at.  A vendor's or site's module
 * sets more than the toolkit's paths: its programming environment's
 * variables (CRAY_CUDATOOLKIT_VERSION, PE_PKGCONFIG_LIBS), a family, Lmod
 * properties.  Whatever the config can say goes into the suggestion (the
 * SDK's "env" and "properties", the top-level "family"); what it cannot is a note next to
 * the suggestion, so nothing the file did is dropped without a word.
 */
#ifndef CTK_LINTSUGGEST_H
#define CTK_LINTSUGGEST_H

#include "config.h"
#include "env.h"
#include "error.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* Put into cfg (one SDK, module_name and pc_prefix settled) what the
 * module set beyond the toolkit: each variable of set (NAME=VALUE, what
 * the module sets) that is not module-system bookkeeping
 * (ctk_modenv_is_bookkeeping) or one the generated module sets itself
 * goes to sdks[0].env, in order; family (NULL: none) to cfg->family.
 * PE_PKGCONFIG_LIBS names the .pc generate writes (<pc_prefix>-<version>);
 * PE_PKGCONFIG_PRODUCTS and PE_<P>_PKGCONFIG_LIBS, which name .pc files
 * generate does not write, are left out.  properties ("name=value", as
 * add_property gave them; may be NULL) go to sdks[0].properties, in
 * order, but for one the config refuses (ctk_config_property_refusal) or
 * a second value of a name.  Each change and each variable or property
 * left out get one line in notes.  False only when memory runs out. */
bool ctk_lintsuggest_keep(ctk_config_t *cfg, const ctk_env_t *set, const char *family,
                          const ctk_strlist_t *properties, ctk_strlist_t *notes, ctk_error_t *err);

/* The family a Tcl modulefile declares: the word after the first `family`
 * command at the start of a line (guards such as ctkgen's own `if {[info
 * commands family] ...} { family cuda }` included).  NULL: none; caller frees. */
char *ctk_lintsuggest_tcl_family(const char *text, ctk_error_t *err);

#endif
