/* lpattern.h - string.find, match, gmatch and gsub for the Lua sandbox,
 * with every matching step counted.
 * SPDX-License-Identifier: MIT
 *
 * Lua's own pattern matcher backtracks without limit inside one C call,
 * where no instruction hook can reach it: `("a"):rep(60):find(".-.-.-.-.-.-.-b")`
 * takes a minute, and each further "a" longer.  These functions give the results and the error messages
 * of Lua 5.4's, and report the work they do to a meter that may stop them
 * by raising a Lua error. */
#ifndef CTK_LPATTERN_H
#define CTK_LPATTERN_H

#include <lua.h>

/* How often the meter hears from a running match, in steps at most. */
#define CTK_LPAT_METER_EVERY 1024UL

/* Receives the steps done since its last call: at least every
 * CTK_LPAT_METER_EVERY steps during a match, and once when a call of find,
 * match or gsub, or of a gmatch iterator, returns (gmatch itself does no
 * matching).  A step is one try of one pattern item at one subject
 * position, one start position, one byte scanned by %b, one escape of a
 * gsub replacement string.  Linear work done in one piece (a plain find's
 * search, the compare of a back-reference) is charged, in one report,
 * before it is done.
 *
 * It may raise a Lua error; the functions hold no memory of their own across
 * a call to it.  It must leave the Lua stack as it found it: gsub may be
 * building its result in a luaL_Buffer when it is called.  A NULL meter
 * counts nothing. */
typedef void (*ctk_lpat_meter_fn)(lua_State *L, unsigned long steps);

/* Set the fields find, match, gmatch and gsub of the table at stack index
 * idx to the metered functions.  Pops nothing.  They give the results and
 * the error messages of Lua 5.4's; an argument error names the function as
 * its call site does, as Lua's own do (only a call from C, such as
 * pcall(f), falls back on the name of a global: "string.find" for Lua's own,
 * "?" for these unless they are installed in the loaded string table). */
void ctk_lpat_install(lua_State *L, int idx, ctk_lpat_meter_fn meter);

#endif
