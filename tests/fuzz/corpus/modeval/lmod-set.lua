-- the Lmod function set in one file: relations, aliases, stacks, queries
family("cuda")
add_property("arch", "gpu")
extensions("numba/0.60, cupy/13.3")
pushenv("CC", "nvc")
pushenv("CXX", false)
set_alias("nvsmi", "nvidia-smi -q")
set_shell_function("cuda_where", "echo $CUDA_HOME", "echo $CUDA_HOME")
prepend_path{"PATH", "/opt/cuda/bin", priority=100}
append_path("MANPATH", "", ":")
remove_path("LD_LIBRARY_PATH", "/usr/lib64", ":")
setenv("CUDA_HOME", pathJoin("/opt", myModuleName(), myModuleVersion()))
local parts = {}
for p in ("a:b::c"):split(":") do parts[#parts + 1] = p:trim() end
setenv("PARTS", table.concat(parts, ","))
if mode() == "load" and not isloaded("gcc") then try_load("gcc/13") end
load_any("nccl/2.27", "nccl")
if isDir("/opt") or isFile("/etc/hostname") then setenv("SITE", os.date("%Y")) end
local out = capture("nvidia-smi -L")
execute{cmd="logger cuda", modeA={"load"}}
whatis("Name: " .. myModuleFullName() .. " " .. myShellType())
if userInGroups("video") then LmodMessage("GPU group") end
local h = hierarchyA(myModuleFullName(), 1)
