-- os.getenv: the starting env, Lmod's own variables, this file's changes
setenv("GH", os.getenv("HOME") .. "/x")
setenv("LV", os.getenv("LMOD_VERSION") or "none")
setenv("MT", os.getenv("ModuleTool") or "none")
setenv("X1", "v1")
prepend_path("GP", os.getenv("X1") or "/none")
prepend_path("PATH", "/opt/genv/bin")
setenv("SEEPATH", os.getenv("PATH"))
setenv("NOTSET", os.getenv("CTK_NOT_SET_ANYWHERE") or "nil")
