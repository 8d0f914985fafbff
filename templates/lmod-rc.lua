-- lmod-rc.lua - .modulerc.lua of the Lmod tree: default and aliases.
-- SPDX-License-Identifier: MIT
-- The only default mechanism in this directory (no "default" symlink).

local function line(...)
  emit(...)
  emit("\n")
end

line("-- -*- lua -*-")
line("-- ", ctk.header)
local name = ctk.module_name
if ctk.default then
  line("module_version(", lua_q(name .. "/" .. ctk.default), ", \"default\")")
end
for _, m in ipairs(ctk.modules) do
  for _, a in ipairs(m.aliases) do
    line("module_version(", lua_q(name .. "/" .. m.version), ", ", lua_q(a), ")")
  end
end
