-- lmod.lua - the Lmod (Lua) modulefile of one toolkit.
-- SPDX-License-Identifier: MIT
-- Runs in ctkgen's sandbox: `ctk` is the toolkit's data (read-only), emit()
-- writes output, lua_q() quotes a Lua string.  Only formatting happens here.

emitln("-- -*- lua -*-")
emitln("-- ", ctk.header)
emitln("-- ", ctk.description, " at ", comment(ctk.root))
emitln("-- version read from ", comment(ctk.version_source))
emitln()
for _, w in ipairs(ctk.whatis) do
  emitln("whatis(", lua_q(w), ")")
end
emitln("help(", lua_q(ctk.help), ")")
emitln()
emitln("family(", lua_q(ctk.family), ")")
for _, m in ipairs(ctk.prereq) do
  emitln("prereq(", lua_q(m), ")")
end
-- Lmod refuses a property its lmodrc.lua's propT does not list
-- (docs/site-config.md, properties).
for _, p in ipairs(ctk.properties) do
  emitln("add_property(", lua_q(p.name), ", ", lua_q(p.value), ")")
end
emitln()
-- Prepending the dirs in reverse leaves them in the decided order, first
-- one first, ahead of whatever the variable held before.
for _, var in ipairs(ctk.paths) do
  for i = #var.dirs, 1, -1 do
    emitln("prepend_path(", lua_q(var.name), ", ", lua_q(var.dirs[i], var.name), ")")
  end
  if var.keep_default then
    emitln("append_path(", lua_q(var.name), ", \"\")")
  end
end
-- The host compiler as one word ("-ccbin=PATH") of the " "-separated
-- NVCC_PREPEND_FLAGS, ahead of the user's own words: unloading removes that
-- word alone, and a -ccbin of the user's, later on nvcc's line, wins.
if ctk.ccbin_flag then
  if string.find(ctk.ccbin_flag, "%s") then
    error(string.format("SDK %s: host_compiler/ccbin: the path holds a blank, which would split it "
      .. "in the \" \"-separated NVCC_PREPEND_FLAGS", ctk.version), 0)
  end
  emitln("prepend_path(", lua_q("NVCC_PREPEND_FLAGS"), ", ", lua_q(ctk.ccbin_flag), ", \" \")")
end
emitln()
-- Lmod hands a value to the shell with a backslash before blanks, quotes
-- and specials, but a newline left bare: the shell would run what follows
-- it as a command, so such a value is refused.
local function env_value(e)
  if string.find(e.value, "\n", 1, true) then
    error(string.format("SDK %s: env %s: the value holds a newline, which Lmod writes into "
      .. "shell code unescaped (the next line would run as a command)", ctk.version, e.name), 0)
  end
  return e.value
end
for _, e in ipairs(ctk.setenv) do
  emitln("setenv(", lua_q(e.name), ", ", lua_q(env_value(e), e.name), ")")
end
