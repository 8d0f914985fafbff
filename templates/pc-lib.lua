-- pc-lib.lua - ctk-<library>-<version>.pc: one library of the toolkit.
-- SPDX-License-Identifier: MIT
-- Search paths come from ctk-<version>.pc through Requires, so a program
-- that asks for two libraries gets each -L once.

emitln("# ", ctk.header)
emitln()
emitln("Name: ", ctk.lib.pc_name)
emitln("Description: ", ctk.lib.description)
emitln("Version: ", ctk.display_version)
emitln("Requires: ", ctk.pc_name, " = ", ctk.display_version)
emitln("Libs: ", ctk.lib.link)
