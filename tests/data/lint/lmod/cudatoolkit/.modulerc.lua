-- default: 13.0
module_version("cudatoolkit/13.0", "default")
