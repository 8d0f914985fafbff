-- pathJoin and string methods
setenv("PJ1", pathJoin("/a/", "/b//c/", "d/"))
setenv("PJ2", pathJoin("a", "", "b"))
setenv("PJ3", pathJoin("/", "x"))
setenv("PJ4", pathJoin("/opt/x", "."))
local parts = {}
for p in ("a:b::c"):split(":") do parts[#parts + 1] = "<" .. p .. ">" end
setenv("SPLIT", table.concat(parts, ","))
setenv("TRIMMED", ("  x y  "):trim())
setenv("LMV", LmodVersion())
