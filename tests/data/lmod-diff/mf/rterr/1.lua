-- a runtime error only in unload mode: ignored, what ran before is kept
setenv("RT1", "1")
prepend_path("PATH", "/opt/rt/bin")
if mode() == "unload" then local t = nil; local x = t.field end
setenv("RT2", "1")
