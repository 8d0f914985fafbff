-- mode-dependent branches, breaks and errors that unload mode keeps going past
if mode() == "unload" then LmodError("unloading") end
setenv("A", "1", true)
unsetenv("B", "2", true)
pushenv("P", 7)
if mode() == "load" then LmodBreak("not today") end
complete("bash", "nvcc", "-W")
uncomplete("bash", "nvcc", "-W")
remove_property("arch", "gpu")
always_unload("old")
depends_on("lib/1")
prereq_any("a", "b")
inherit()
local pkg = Pkg:new{Category="cuda", Description="toolkit", level=0}
pkg:setStandardPaths("BIN", "LIB")
