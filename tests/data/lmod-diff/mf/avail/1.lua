-- isAvail returns the file path or false
local a = isAvail("lib/2")
setenv("AV_LIB2", a and "yes" or "no")
setenv("AV_NOPE", isAvail("nonexist") and "yes" or "no")
setenv("AV_OTHER", isAvail("other") and "yes" or "no")
