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

local full = {}
for _, v in ipairs(pc.vars) do
  full[v.name] = (v.ref and full[v.ref] or "") .. v.value
end

-- What the module hands CMake, for a build with the .pc alone
-- (docs/variables.md): cmake -DCMAKE_LIBRARY_PATH="$(pkg-config
-- --variable=cmake_library_path ...)" and so on.  CMake lists (';'), of
-- the variables above, in the module's order: CMAKE_LIBRARY_PATH is the
-- link dir, then the lib dirs (as LIBRARY_PATH); CMAKE_INCLUDE_PATH the
-- include dirs (as CPATH); CMAKE_BUILD_RPATH the .pc's own run path, for
-- the libraries FindCUDAToolkit and the CUDA language link (CMake would
-- give a wheel tree's programs the link dir, where nothing loads).  No
-- field uses them.  A dir holding ';' cannot be one element of a CMake
-- list: then none of them is written.
local function cmake_list(names)
  local refs = {}
  for _, name in ipairs(names) do
    if string.find(full[name], ";", 1, true) then
      return nil
    end
    refs[#refs + 1] = "${" .. name .. "}"
  end
  return table.concat(refs, ";")
end
local cmake_lib, cmake_inc = {}, {}
if pc.linkdir then
  cmake_lib[1] = pc.linkdir
end
for _, name in ipairs(pc.libdirs) do
  cmake_lib[#cmake_lib + 1] = name
end
for _, name in ipairs(pc.cflags) do
  cmake_inc[#cmake_inc + 1] = name
end
local cmake_vars = {
  { "cmake_library_path", cmake_list(cmake_lib) },
  { "cmake_include_path", cmake_list(cmake_inc) },
  { "cmake_build_rpath", pc.rpath and cmake_list(pc.libdirs) or "" },
}
local whole = true
for _, cv in ipairs(cmake_vars) do
  whole = whole and cv[2] ~= nil
end
if whole then
  for _, cv in ipairs(cmake_vars) do
    if cv[2] ~= "" then
      emitln(cv[1], "=", cv[2])
    end
  end
end
-- The module's LD_LIBRARY_PATH (':', which no toolkit dir may hold), for
-- what reads no pkg-config and finds its libraries through the loader
-- (numba-cuda's libnvvm, CuPy's NVRTC: the loader's search comes before
-- CUDA_HOME there).  Not the link dir: the loader reads no ld scripts.
if #pc.libdirs > 0 then
  local refs = {}
  for _, name in ipairs(pc.libdirs) do
    refs[#refs + 1] = "${" .. name .. "}"
  end
  emitln("ld_library_path=", table.concat(refs, ":"))
end

-- Each Cflags and Libs argument, expanded, must fit what pkgconf keeps of
-- one argument; pc_q() refuses one that does not (its text is not used).
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
