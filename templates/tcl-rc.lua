-- tcl-rc.lua - .modulerc of the Environment Modules tree: default, aliases.
-- SPDX-License-Identifier: MIT
-- The only default mechanism in this directory (no .version file).

emitln("#%Module1.0")
emitln("## ", ctk.header)
local name = ctk.module_name
if ctk.default then
  emitln("module-version ", tcl_q(name .. "/" .. ctk.default), " default")
end
for _, m in ipairs(ctk.modules) do
  for _, a in ipairs(m.aliases) do
    emitln("module-version ", tcl_q(name .. "/" .. m.version), " ", tcl_q(a))
  end
end
