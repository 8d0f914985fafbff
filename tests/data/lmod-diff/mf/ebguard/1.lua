-- EasyBuild's guarded load, and its recursive-unload variant
if not isloaded("lib") then
    load("lib")
end
if mode() == "unload" or not isloaded("other") then
    load("other")
end
setenv("EBG", "1")
