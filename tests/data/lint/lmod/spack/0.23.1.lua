-- -*- lua -*-
-- Spack bootstrap module (Pawsey style): execute{cmd=...} sources setup-env.sh (not run: CTK-MOD-007); full-name check by hand
whatis("Spack package manager, set up for this user's shell")
help([[Loads Spack 0.23.1 and sources its shell integration.]])

local spack_root = "/apps/spack/0.23.1"

if mode() == "load" and myModuleUsrName() ~= myModuleFullName() then
    LmodError("Load spack with its full name: module load " .. myModuleFullName())
end

conflict("spack")
setenv("SPACK_ROOT", spack_root)
setenv("SPACK_PYTHON", "/usr/bin/python3")
prepend_path("PATH", pathJoin(spack_root, "bin"))
execute{cmd=". " .. pathJoin(spack_root, "share/spack/setup-env.sh"), modeA={"load"}}
