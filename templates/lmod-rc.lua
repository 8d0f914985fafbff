-- lmod-rc.lua - .modulerc.lua of the Lmod tree: default and aliases.
-- SPDX-License-Identifier: MIT
-- The only default mechanism in this directory (no "default" symlink).

emitln("-- -*- lua -*-")
emitln("-- ", ctk.header)
local name = ctk.module_name
if ctk.default then
  emitln("module_version(", lua_q(name .. "/" .. ctk.default), ", \"default\")")
end
for _, m in ipairs(ctk.modules) do
  for _, a in ipairs(m.aliases) do
    emitln("module_version(", lua_q(name .. "/" .. m.version), ", ", lua_q(a), ")")
  end
end
