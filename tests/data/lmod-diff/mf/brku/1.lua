-- LmodBreak only in unload mode: execution continues past it
setenv("UA", "1")
if mode() == "unload" then LmodBreak() end
setenv("UB", "1")
