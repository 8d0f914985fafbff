-- userInGroups: true for root or a listed group
setenv("UIG_ROOT", tostring(userInGroups("root")))
setenv("UIG_NONE", tostring(userInGroups("no-such-group-ctk")))
