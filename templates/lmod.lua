-- lmod.lua - the Lmod (Lua) modulefile of one toolkit.
-- SPDX-License-Identifier: MIT
-- Runs in ctkgen's sandbox: `ctk` is the toolkit's data (read-only), emit()
-- writes output, lua_q() quotes a Lua string.  Only formatting happens here.

local function line(...)
  emit(...)
  emit("\n")
end

-- Comments are for people: control bytes and backslashes (a trailing one
-- would continue a Tcl comment onto the next line) are shown as '?'.
local function safe(s)
  return (s:gsub("[%c\\]", "?"))
end

line("-- -*- lua -*-")
line("-- ", ctk.header)
line("-- ", ctk.description, " at ", safe(ctk.root))
line("-- version read from ", safe(ctk.version_source))
line()
for _, w in ipairs(ctk.whatis) do
  line("whatis(", lua_q(w), ")")
end
line("help(", lua_q(ctk.help), ")")
line()
line("family(", lua_q(ctk.family), ")")
for _, m in ipairs(ctk.prereq) do
  line("prereq(", lua_q(m), ")")
end
line()
-- Prepending the dirs in reverse leaves them in the decided order, first
-- one first, ahead of whatever the variable held before.
for _, var in ipairs(ctk.paths) do
  for i = #var.dirs, 1, -1 do
    line("prepend_path(", lua_q(var.name), ", ", lua_q(var.dirs[i], var.name), ")")
  end
end
line()
for _, e in ipairs(ctk.setenv) do
  line("setenv(", lua_q(e.name), ", ", lua_q(e.value, e.name), ")")
end
