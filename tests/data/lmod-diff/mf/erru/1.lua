-- LmodError only in unload mode: a warning there
setenv("ERRU", "1")
if mode() == "unload" then LmodError("cannot unload cleanly") end
