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
emitln()
for _, var in ipairs(ctk.paths) do
  for i = #var.dirs, 1, -1 do
    emitln("prepend-path ", tcl_q(var.name), " ", tcl_q(var.dirs[i], var.name))
  end
  if var.keep_default then
    emitln("append-path ", tcl_q(var.name), " \"\"")
  end
end
emitln()
-- Both module systems hand a value to the shell with a backslash before
-- blanks and quotes but a newline left bare, so the shell would run what
-- follows it as a command: a value with a newline is refused.
local function env_value(e)
  if string.find(e.value, "\n", 1, true) then
    error(string.format("SDK %s: env %s: the value holds a newline, which Lmod and "
      .. "Environment Modules write into shell code unescaped (the next line would run "
      .. "as a command)", ctk.version, e.name), 0)
  end
  return e.value
end
for _, e in ipairs(ctk.setenv) do
  emitln("setenv ", tcl_q(e.name), " ", tcl_q(env_value(e), e.name))
end
