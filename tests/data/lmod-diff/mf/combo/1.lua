-- conditionals on mode(), isloaded() and os.getenv
local site = os.getenv("SITE") or "none"
setenv("COMBO_SITE", site)
if isloaded("lib") then
    prepend_path("COMBO_DEPS", "/lib")
else
    pushenv("COMBO_NOLIB", "yes")
end
if mode() == "load" then
    prepend_path("COMBO_LOADONLY", "/x")
end
for _, d in ipairs({"/c1", "/c2", "/c1"}) do append_path("COMBO_LIST", d) end
setenv("COMBO_N", #("a:b:c"))
