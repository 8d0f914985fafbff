/* lpattern.c - placeholder, replaced by the implementation. */
#include <ctkconf.h>

#include "lpattern.h"

void ctk_lpat_install(lua_State *L, int idx, ctk_lpat_meter_fn meter)
{
    (void)L;
    (void)idx;
    (void)meter;
}
