-- tcl.lua - the Environment Modules (Tcl) modulefile of one toolkit.
-- SPDX-License-Identifier: MIT
-- Same environment as lmod.lua, spelled in Tcl; tcl_q() quotes a Tcl word.

local function line(...)
  emit(...)
  emit("\n")
end

-- Comments are for people: control bytes and backslashes (a trailing one
-- would continue a Tcl comment onto the next line) are shown as '?'.
local function safe(s)
  return (s:gsub("[%c\\]", "?"))
end

line("#%Module1.0")
line("## ", ctk.header)
line("## ", ctk.description, " at ", safe(ctk.root))
line("## version read from ", safe(ctk.version_source))
line()
for _, w in ipairs(ctk.whatis) do
  line("module-whatis ", tcl_q(w))
end
line("proc ModulesHelp {} {")
line("    puts stderr ", tcl_q(ctk.help))
line("}")
line()
-- `family` arrived in Environment Modules 5.1; the conflict on our own name
-- keeps two toolkits apart on older releases too.
line("conflict ", tcl_q(ctk.module_name))
line("if {[info commands family] ne {}} {")
line("    family ", tcl_q(ctk.family))
line("}")
for _, m in ipairs(ctk.prereq) do
  line("prereq ", tcl_q(m))
end
line()
for _, var in ipairs(ctk.paths) do
  for i = #var.dirs, 1, -1 do
    line("prepend-path ", tcl_q(var.name), " ", tcl_q(var.dirs[i], var.name))
  end
end
line()
for _, e in ipairs(ctk.setenv) do
  line("setenv ", tcl_q(e.name), " ", tcl_q(e.value, e.name))
end
