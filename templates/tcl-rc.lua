-- tcl-rc.lua - .modulerc of the Environment Modules tree: default, aliases.
-- SPDX-License-Identifier: MIT
-- The only default mechanism in this directory (no .version file).

local function line(...)
  emit(...)
  emit("\n")
end

line("#%Module1.0")
line("## ", ctk.header)
local name = ctk.module_name
if ctk.default then
  line("module-version ", tcl_q(name .. "/" .. ctk.default), " default")
end
for _, m in ipairs(ctk.modules) do
  for _, a in ipairs(m.aliases) do
    line("module-version ", tcl_q(name .. "/" .. m.version), " ", tcl_q(a))
  end
end
