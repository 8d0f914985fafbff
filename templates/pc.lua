-- pc.lua - ctk-<version>.pc: the whole toolkit for pkg-config.
-- SPDX-License-Identifier: MIT
-- Libs use only -L, -l and "-Xlinker -rpath=DIRS", which nvcc and the host
-- compilers all accept verbatim (nvcc rejects -Wl,a,b,c lists).

local pc = ctk.pc
-- The config field behind each variable, so a refusal names what to change.
local field_of = { cudaroot = "base", includedir = "base", libdir = "base", cccl = "base",
                   math = "math_libs",
                   cupti = "cupti", nvvm = "nvvm", nccl = "comm_libs/nccl",
                   nvshmem = "comm_libs/nvshmem", ctk_linkdir = "the output dir" }
local function field(name)
  return field_of[name] or field_of[string.match(name, "^(%a+)_")] or name
end
local function what(name)
  return string.format("SDK %s: %s (.pc variable %s)", ctk.version, field(name), name)
end
emitln("# ", ctk.header)
emitln("# ", ctk.description, " at ", comment(ctk.root))
emitln("# version read from ", comment(ctk.version_source))
for _, v in ipairs(pc.vars) do
  local value = pc_q(v.value, what(v.name))
  if v.ref then
    value = "${" .. v.ref .. "}" .. value
  end
  emitln(v.name, "=", value)
end
-- The host compiler nvcc needs, for `nvcc -ccbin $(pkg-config
-- --variable=ccbin ...)`; no field uses it.
if pc.ccbin then
  emitln("ccbin=", pc_q(pc.ccbin, string.format("SDK %s: host_compiler/ccbin (.pc variable ccbin)",
                                                 ctk.version)))
end

-- Each Cflags and Libs argument, expanded, must fit what pkgconf keeps of
-- one argument; pc_q() refuses one that does not (its text is not used).
local full = {}
for _, v in ipairs(pc.vars) do
  full[v.name] = (v.ref and full[v.ref] or "") .. v.value
end
for _, name in ipairs(pc.cflags) do
  pc_q("-I" .. full[name], what(name))
end
for _, name in ipairs(pc.libdirs) do
  pc_q("-L" .. full[name], what(name))
end
if pc.linkdir then
  pc_q("-L" .. full[pc.linkdir], what(pc.linkdir))
end
if pc.rpath and #pc.libdirs > 0 then
  local dirs, fields, seen = {}, {}, {}
  for _, name in ipairs(pc.libdirs) do
    dirs[#dirs + 1] = full[name]
    if not seen[field(name)] then
      seen[field(name)] = true
      fields[#fields + 1] = field(name)
    end
  end
  pc_q("-rpath=" .. table.concat(dirs, ":"),
       string.format("SDK %s: the run path of %s (pc_rpath false leaves it out)", ctk.version,
                     table.concat(fields, ", ")))
end
emitln()
emitln("Name: ", ctk.pc_prefix)
emitln("Description: ", pc.description)
emitln("Version: ", ctk.display_version)

local cflags = {}
for _, name in ipairs(pc.cflags) do
  cflags[#cflags + 1] = "-I${" .. name .. "}"
end
emitln("Cflags: ", table.concat(cflags, " "))

local libs = {}
-- ctkgen's dir of the unversioned names the toolkit lacks (libcudart.so
-- of a wheel tree) comes first; it holds nothing to run, so no run path.
if pc.linkdir then
  libs[#libs + 1] = "-L${" .. pc.linkdir .. "}"
end
for _, name in ipairs(pc.libdirs) do
  libs[#libs + 1] = "-L${" .. name .. "}"
end
libs[#libs + 1] = pc.libs
-- One run path list in one -Xlinker: pkgconf drops a repeated "-Xlinker"
-- as a duplicate flag, which would leave a bare -rpath= behind.
if pc.rpath and #pc.libdirs > 0 then
  local dirs = {}
  for _, name in ipairs(pc.libdirs) do
    dirs[#dirs + 1] = "${" .. name .. "}"
  end
  libs[#libs + 1] = "-Xlinker -rpath=" .. table.concat(dirs, ":")
end
emitln("Libs: ", table.concat(libs, " "))
