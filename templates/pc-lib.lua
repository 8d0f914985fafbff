-- pc-lib.lua - ctk-<library>-<version>.pc: one library of the toolkit.
-- SPDX-License-Identifier: MIT
-- Search paths come from ctk-<version>.pc through Requires, so a program
-- that asks for two libraries gets each -L once.

local function line(...)
  emit(...)
  emit("\n")
end

line("# ", ctk.header)
line()
line("Name: ", ctk.lib.pc_name)
line("Description: ", ctk.lib.description)
line("Version: ", ctk.display_version)
line("Requires: ", ctk.pc_name, " = ", ctk.display_version)
line("Libs: ", ctk.lib.link)
