-- -*- lua -*-
-- Site-written CUDA in a compiler hierarchy: hierarchyA, myModuleFullName, pathJoin, split, trim, os.date, userInGroups, isDir/isFile, requireFullName, LmodBreak not taken, remove_property, isAvail, myShell*, myFileName
local full = myModuleFullName()
local comp = hierarchyA(full, 1)[1]              -- "gcc/13.2.0"
local parts = {}
for w in comp:split("/") do parts[#parts + 1] = w end
local cname, cver = parts[1], parts[2]
local ver = ("  " .. myModuleVersion() .. "  "):trim()
local root = "@CUDA@"

whatis("Name: CUDA Toolkit " .. ver .. " for " .. cname .. " " .. cver)
whatis("Audited: " .. os.date("%Y-%m-%d") .. " (" .. myFileName() .. ")")
help([[CUDA Toolkit for the ]] .. comp .. [[ compiler level.  Questions: hpc-help.]])

if mode() == "load" then
    requireFullName()
end
if os.getenv("LMOD_SYSTEM_NAME") == "login-nogpu" then
    LmodBreak("cuda: this system has no GPUs; not loaded")
end

family("cuda")
add_property("arch", "gpu")
remove_property("state", "testing")

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("CPATH", pathJoin(root, "include"))
for _, sub in ipairs({ "extras/CUPTI", "nvvm" }) do
    if isDir(pathJoin(root, sub, "include")) then
        prepend_path("CPATH", pathJoin(root, sub, "include"))
    end
    prepend_path("LD_LIBRARY_PATH", pathJoin(root, sub, "lib64"))
    prepend_path("LIBRARY_PATH", pathJoin(root, sub, "lib64"))
end
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib64"))
if isFile(pathJoin(root, "version.json")) then
    setenv("CUDA_VERSION_FILE", pathJoin(root, "version.json"))
end
setenv("CUDA_HOME", root)
setenv("SITE_CUDA_COMPILER", cname .. "-" .. cver)
if isAvail("cuda-samples/" .. ver) then
    setenv("CUDA_SAMPLES_MODULE", "cuda-samples/" .. ver)
end
if myShellType() == "csh" or myShellName() == "fish" then
    LmodMessage("cuda/" .. ver .. ": the site's nvcc wrappers need a POSIX shell")
end

if mode() == "load" and not userInGroups("gpu-users") then
    LmodMessage("cuda/" .. ver .. ": GPU partitions need the gpu-users group; see https://hpc.example.edu/gpu")
end
