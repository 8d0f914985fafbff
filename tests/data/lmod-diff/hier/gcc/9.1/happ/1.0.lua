-- hierarchyA: the directories above the module name
local h = hierarchyA(myModuleFullName(), 1)
setenv("HA", h[1] or "none")
