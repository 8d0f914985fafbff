-- inherit(): the same-named module later on MODULEPATH
inherit()
setenv("INH_TOP", "1")
prepend_path("PATH", "/opt/inh/top")
