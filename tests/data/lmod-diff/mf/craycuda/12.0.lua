-- HPE Cray PE style: word lists in "path" variables, a leading space
local base = "/opt/nvidia/hpc_sdk/Linux_x86_64/23.3/cuda/12.0"
setenv("CRAY_CUDATOOLKIT_VERSION", "12.0")
setenv("CRAY_CUDATOOLKIT_DIR", base)
setenv("CRAY_CUDATOOLKIT_POST_LINK_OPTS", " -L" .. base .. "/lib64 -lcudart")
prepend_path("PE_PKGCONFIG_LIBS", "cudatoolkit_12.0")
prepend_path("PE_PKGCONFIG_PRODUCTS", "PE_CUDATOOLKIT")
append_path("PE_PRODUCT_LIST", "CRAY_CUDATOOLKIT")
prepend_path("PKG_CONFIG_PATH", base .. "/lib64/pkgconfig")
prepend_path("PATH", base .. "/bin")
