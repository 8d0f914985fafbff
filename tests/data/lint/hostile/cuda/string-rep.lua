-- -*- lua -*-
-- a padding "banner" gone wrong
local banner = string.rep("=", 1024 * 1024 * 1024)
LmodMessage(banner)
