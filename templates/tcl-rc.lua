-- tcl-rc.lua - .modulerc of the Environment Modules tree: default, aliases.
-- SPDX-License-Identifier: MIT
-- ctk.default is always set (when there is a toolkit at all): the config's
-- "default", else the toolkit with the highest CUDA version (render.c says
-- exactly how), so that Lmod and Environment Modules load the same one.
-- The "full_version_aliases" line records whether this file gives the
-- toolkits' full X.Y.Z versions as names: a run whose config leaves the
-- key out keeps what the line says (cmd_generate.c, full_names_of_tree).
-- The only default mechanism in this directory (no .version file).

emitln("#%Module1.0")
emitln("## ", ctk.header)
emitln("## full_version_aliases: ", ctk.full_version_aliases and "true" or "false")
local name = ctk.module_name
if ctk.default then
  if ctk.default_implicit then
    emitln("## no \"default\" in the site config: the SDK with the highest CUDA version (the first of equals) is the default")
  end
  emitln("module-version ", tcl_q(name .. "/" .. ctk.default), " default")
end
for _, m in ipairs(ctk.modules) do
  for _, a in ipairs(m.aliases) do
    emitln("module-version ", tcl_q(name .. "/" .. m.version), " ", tcl_q(a))
  end
end
