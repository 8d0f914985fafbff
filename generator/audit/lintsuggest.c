/* lintsuggest.c - what --fix-suggest keeps of a module (see lintsuggest.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "lintsuggest.h"
#include "modenv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static bool env_push(ctk_sdk_conf_t *sc, const char *name, size_t name_len, const char *value, ctk_error_t *err)
{
    ctk_kv_t *env = realloc(sc->env, (sc->n_env + 1) * sizeof *env);

    if (!env) {
        ctk_error_nomem(err);
        return false;
    }
    sc->env = env;
    env[sc->n_env].name = ctk_strndup(name, name_len, err);
    env[sc->n_env].value = env[sc->n_env].name ? ctk_strdup(value, err) : NULL;
    if (!env[sc->n_env].value) {
        free(env[sc->n_env].name);
        return false;
    }
    sc->n_env++;
    return true;
}

/* PE_PKGCONFIG_PRODUCTS, PE_<P>_PKGCONFIG_LIBS: .pc names of the vendor's. */
static bool vendor_pc_var(const char *name, size_t n)
{
    static const char tail[] = "_PKGCONFIG_LIBS";
    size_t t = sizeof tail - 1;

    if (n == 21 && strncmp(name, "PE_PKGCONFIG_PRODUCTS", n) == 0)
        return true;
    return n > 3 + t && strncmp(name, "PE_", 3) == 0 && strncmp(name + n - t, tail, t) == 0 &&
           !(n == 17 && strncmp(name, "PE_PKGCONFIG_LIBS", n) == 0);
}

/* One NAME=VALUE the module sets: into the SDK's env, or a note why not. */
static bool keep_var(ctk_config_t *cfg, const char *kv, ctk_strlist_t *notes, ctk_error_t *err)
{
    ctk_sdk_conf_t *sc = &cfg->sdks[0];
    const char *eq = strchr(kv, '='), *why;
    char name[256], pc[512];
    size_t n;

    if (!eq || (n = (size_t)(eq - kv)) == 0 || n >= sizeof name)
        return true;
    memcpy(name, kv, n);
    name[n] = '\0';
    if (ctk_modenv_is_bookkeeping(name) || strncmp(name, "LMOD_FAMILY_", 12) == 0)
        return true;
    /* the toolkit's own paths are what the suggestion regenerates; the
     * flags are a finding (CTK-ENV-003) and never kept */
    if ((why = ctk_config_env_refusal(cfg->module_name, name, eq + 1)))
        return strncmp(why, "set by", 6) == 0 || strncmp(why, "a flags", 7) == 0 ||
               ctk_strlist_pushf(notes, err, "%s is not kept: %s", name, why);
    if (vendor_pc_var(name, n))
        return ctk_strlist_pushf(notes, err, "%s=\"%s\" is not kept: it names .pc files ctkgen does not write; add it to the "
                    "SDK's \"env\" with the .pc files it names on PKG_CONFIG_PATH", name, eq + 1);
    if (strcmp(name, "PE_PKGCONFIG_LIBS") == 0) {
        snprintf(pc, sizeof pc, "%s-%s", cfg->pc_prefix ? cfg->pc_prefix : "ctk",
                 sc->module_version ? sc->module_version : sc->version);
        if (strcmp(eq + 1, pc) != 0 &&
            !ctk_strlist_pushf(notes, err, "PE_PKGCONFIG_LIBS was \"%s\"; the suggestion names %s.pc, which generate writes",
                  eq + 1, pc))
            return false;
        return env_push(sc, name, n, pc, err);
    }
    return env_push(sc, name, n, eq + 1, err);
}

/* One add_property "name=value": into the SDK's properties, or a note why
 * not.  The config holds one value a name; Lmod takes more. */
static bool keep_property(ctk_sdk_conf_t *sc, const char *p, ctk_strlist_t *notes, ctk_error_t *err)
{
    const char *eq = strchr(p, '='), *why;
    char name[256];
    ctk_kv_t *props;
    size_t n = eq ? (size_t)(eq - p) : strlen(p), i;

    if (!eq || n >= sizeof name)
        return ctk_strlist_pushf(notes, err, "add_property(\"%.*s\") is not kept: it has no value", (int)n, p);
    memcpy(name, p, n);
    name[n] = '\0';
    if ((why = ctk_config_property_refusal(name, eq + 1)))
        return ctk_strlist_pushf(notes, err, "add_property(\"%s\", \"%s\") is not kept: %s", name, eq + 1, why);
    for (i = 0; i < sc->n_properties; i++)
        if (strcmp(sc->properties[i].name, name) == 0)
            return strcmp(sc->properties[i].value, eq + 1) == 0 ||
                   ctk_strlist_pushf(notes, err, "add_property(\"%s\", \"%s\") is not kept: the site config holds "
                        "one value a property, and %s is \"%s\"", name, eq + 1, name,
                        sc->properties[i].value);
    props = realloc(sc->properties, (sc->n_properties + 1) * sizeof *props);
    if (!props) {
        ctk_error_nomem(err);
        return false;
    }
    sc->properties = props;
    props[sc->n_properties].name = ctk_strdup(name, err);
    props[sc->n_properties].value = props[sc->n_properties].name ? ctk_strdup(eq + 1, err) : NULL;
    if (!props[sc->n_properties].value) {
        free(props[sc->n_properties].name);
        return false;
    }
    sc->n_properties++;
    return true;
}

bool ctk_lintsuggest_keep(ctk_config_t *cfg, const ctk_env_t *set, const char *family,
                          const ctk_strlist_t *properties, ctk_strlist_t *notes, ctk_error_t *err)
{
    if (!cfg || cfg->n_sdks != 1)
        return true;
    for (size_t i = 0; set && i < set->kv.len; i++)
        if (!keep_var(cfg, set->kv.items[i], notes, err))
            return false;
    if (family && (!cfg->family || strcmp(cfg->family, family) != 0)) {
        char *copy = ctk_strdup(family, err);

        if (!copy)
            return false;
        free(cfg->family);
        cfg->family = copy;
    }
    for (size_t i = 0; properties && i < properties->len; i++)
        if (!keep_property(&cfg->sdks[0], properties->items[i], notes, err))
            return false;
    return true;
}

char *ctk_lintsuggest_tcl_family(const char *text, ctk_error_t *err)
{
    for (const char *p = text; p && *p;) {
        const char *q = p + strspn(p, " \t{");
        const char *eol = strchr(q, '\n');

        if (strncmp(q, "family", 6) == 0 && (q[6] == ' ' || q[6] == '\t')) {
            const char *w = q + 6 + strspn(q + 6, " \t");
            size_t len = strcspn(w, " \t\n;}\"");

            if (len)
                return ctk_strndup(w, len, err);
        }
        p = eol ? eol + 1 : NULL;
    }
    return NULL;
}
