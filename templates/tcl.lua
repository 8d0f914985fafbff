-- tcl.lua - the Environment Modules (Tcl) modulefile of one toolkit.
-- SPDX-License-Identifier: MIT
-- Same environment as lmod.lua, spelled in Tcl; tcl_q() quotes a Tcl word.

emitln("#%Module1.0")
emitln("## ", ctk.header)
emitln("## ", ctk.description, " at ", comment(ctk.root))
emitln("## version read from ", comment(ctk.version_source))
emitln()
for _, w in ipairs(ctk.whatis) do
  emitln("module-whatis ", tcl_q(w))
end
emitln("proc ModulesHelp {} {")
emitln("    puts stderr ", tcl_q(ctk.help))
emitln("}")
emitln()
-- `family` arrived in Environment Modules 5.1; the conflict on our own name
-- keeps two toolkits apart on older releases too.
emitln("conflict ", tcl_q(ctk.module_name))
emitln("if {[info commands family] ne {}} {")
emitln("    family ", tcl_q(ctk.family))
emitln("}")
for _, m in ipairs(ctk.prereq) do
  emitln("prereq ", tcl_q(m))
end
-- Environment Modules 5 defines add-property and ignores it; Lmod reading
-- this file turns it into add_property.
for _, p in ipairs(ctk.properties) do
  emitln("add-property ", tcl_q(p.name), " ", tcl_q(p.value))
end
emitln()
for _, var in ipairs(ctk.paths) do
  for i = #var.dirs, 1, -1 do
    emitln("prepend-path ", tcl_q(var.name), " ", tcl_q(var.dirs[i], var.name))
  end
  if var.keep_default then
    emitln("append-path ", tcl_q(var.name), " \"\"")
  end
end
-- As lmod.lua: one word of the " "-separated NVCC_PREPEND_FLAGS.
if ctk.ccbin_flag then
  if string.find(ctk.ccbin_flag, "%s") then
    error(string.format("SDK %s: host_compiler/ccbin: the path holds a blank, which would split it "
      .. "in the \" \"-separated NVCC_PREPEND_FLAGS", ctk.version), 0)
  end
  emitln("prepend-path -d \" \" ", tcl_q("NVCC_PREPEND_FLAGS"), " ", tcl_q(ctk.ccbin_flag))
end
emitln()
-- Environment Modules hands a value to the shell with a backslash before
-- blanks, quotes and most specials, but not before a newline (the shell
-- would run what follows as a command) or '~' (the shell expands it at the
-- start of the value and after ':'): such values are refused.
local function env_value(e)
  local field = e.name == "CUDAHOSTCXX" and "host_compiler/ccbin" or "env " .. e.name
  local bad
  if string.find(e.value, "\n", 1, true) then
    bad = "holds a newline, which Environment Modules writes into shell code unescaped "
      .. "(the next line would run as a command)"
  elseif string.find(e.value, "^~") or string.find(e.value, ":~") then
    bad = "has '~' at its start or after ':', which Environment Modules writes into shell "
      .. "code unescaped (the shell would expand it to a home directory)"
  end
  if bad then
    error(string.format("SDK %s: %s: the value %s", ctk.version, field, bad), 0)
  end
  return e.value
end
for _, e in ipairs(ctk.setenv) do
  emitln("setenv ", tcl_q(e.name), " ", tcl_q(env_value(e), e.name))
end
