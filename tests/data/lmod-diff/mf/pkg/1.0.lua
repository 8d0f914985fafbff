-- TACC's Pkg helper
local pkg = Pkg:new{Category="tools", URL="http://example.org", Description="d", level=0}
setenv("PKGBASE", pkg:pkgBase())
