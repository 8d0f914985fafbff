-- -*- lua -*-
-- cudatoolkit 13.0, HPE Cray PE style: the PE's variables beside the
-- toolkit's paths, and a family of the PE's own name.
whatis("Name: cudatoolkit")
whatis("Version: 13.0")

family("cudatoolkit")

local root = "@CUDA@"

setenv("CRAY_CUDATOOLKIT_VERSION", "13.0_25.9")
setenv("CRAY_CUDATOOLKIT_DIR", root)
setenv("CRAY_CUDATOOLKIT_INCLUDE_OPTS", "-I" .. root .. "/include")
setenv("PE_PKGCONFIG_LIBS", "cudatoolkit_13.0")
prepend_path("PE_PKGCONFIG_PRODUCTS", "PE_CUDATOOLKIT")
prepend_path("PKG_CONFIG_PATH", root .. "/lib64/pkgconfig")

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("CPATH", pathJoin(root, "nvvm/include"))
prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("CPATH", pathJoin(root, "include"))
for _, var in ipairs({"LIBRARY_PATH", "LD_LIBRARY_PATH"}) do
    prepend_path(var, pathJoin(root, "nvvm/lib64"))
    prepend_path(var, pathJoin(root, "extras/CUPTI/lib64"))
    prepend_path(var, pathJoin(root, "lib64"))
end
setenv("CUDA_HOME", root)
