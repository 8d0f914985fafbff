/* pattern_ser.h - the Lua text shared by check_lpattern and fuzz_pattern
 * that describes a call's results as one string, so that two states'
 * outcomes compare byte for byte.
 * SPDX-License-Identifier: MIT
 *
 * ser(v): a value with its type (a number with its subtype, an integer and
 * a float never alike); packed(r): a table.pack result as "n: v1 v2 ...". */
#ifndef CTK_PATTERN_SER_H
#define CTK_PATTERN_SER_H

#define PATTERN_SER_LUA \
    "local function ser(v)\n" \
    "  local t = type(v)\n" \
    "  if t == 'string' then return string.format('%q', v) end\n" \
    "  if t == 'number' then return math.type(v) .. ' ' .. string.format('%q', v) end\n" \
    "  return t .. ' ' .. tostring(v)\n" \
    "end\n" \
    "local function packed(r)\n" \
    "  local parts = { r.n .. ':' }\n" \
    "  for i = 1, r.n do parts[#parts + 1] = ser(r[i]) end\n" \
    "  return table.concat(parts, ' ')\n" \
    "end\n"

#endif
