-- the base that mf3/inh/1 inherits
setenv("INH_BASE", "1")
prepend_path("PATH", "/opt/inh/base")
