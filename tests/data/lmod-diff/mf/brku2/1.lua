-- LmodBreak("text") only in unload mode: execution continues past it
-- (brku's LmodBreak() without an argument is a "not strings" warning there)
setenv("UA", "1")
if mode() == "unload" then LmodBreak("stop") end
setenv("UB", "1")
