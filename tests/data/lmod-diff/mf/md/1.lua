-- mode(): branches seen in both modes
setenv("MODE_" .. mode(), "x")
if mode() == "load" then setenv("LOADED_MD", "yes") end
if mode() == "unload" then remove_path("PATH", "/usr/bin") end
prepend_path("MDP", "/" .. mode())
