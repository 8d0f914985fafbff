-- isloaded() of the module itself while it loads: true in Lmod
if isloaded("selfq") then setenv("SELF", "yes") else setenv("SELF", "no") end
if isloaded("selfq/1") then prepend_path("SELFP", "/full") end
