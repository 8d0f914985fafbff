-- a compiler that unlocks a hierarchy level
family("compiler")
prepend_path("MODULEPATH", pathJoin(os.getenv("CTK_DIFF_DATA"), "mf2"))
setenv("COMP", "1")
