-- isloaded() with a name and a full name
if isloaded("lib") then setenv("HAS_LIB", "yes") else setenv("HAS_LIB", "no") end
if isloaded("lib/2") then prepend_path("ISL", "/lib2") end
if isloaded("other/1") then prepend_path("ISL", "/other1") end
if isloaded("nonexist") then prepend_path("ISL", "/never") end
