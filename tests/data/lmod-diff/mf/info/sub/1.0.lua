-- the my*() queries
setenv("MN", myModuleName())
setenv("MV", myModuleVersion())
setenv("MFN", myModuleFullName())
setenv("MUN", myModuleUsrName())
setenv("MFILE", myFileName())
setenv("MSH", myShellName())
setenv("MSHT", myShellType())
