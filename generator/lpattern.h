/* lpattern.h - string.find, match, gmatch and gsub for the Lua sandbox,
 * with every matching step counted.
 * SPDX-License-Identifier: MIT
 *
 * Lua's own pattern matcher backtracks without limit inside one C call,
 * where no instruction hook can reach it: `("a"):rep(40):find(".-.-.-.-b")`
 * runs for hours.  These functions give the results and the error messages
 * of Lua 5.4's, and report the work they do to a meter that may stop them
 * by raising a Lua error. */
#ifndef CTK_LPATTERN_H
#define CTK_LPATTERN_H

#include <lua.h>

/* How often the meter hears from a running match, in steps at most. */
#define CTK_LPAT_METER_EVERY 1024UL

/* Receives the steps done since its last call: at least every
 * CTK_LPAT_METER_EVERY steps during a match, and when a call returns.  It
 * may raise a Lua error; the functions hold no memory of their own across
 * a call to it. */
typedef void (*ctk_lpat_meter_fn)(lua_State *L, unsigned long steps);

/* Set the fields find, match, gmatch and gsub of the table at stack index
 * idx to the metered functions.  Pops nothing. */
void ctk_lpat_install(lua_State *L, int idx, ctk_lpat_meter_fn meter);

#endif
