-- -*- lua -*-
local posix = require("posix")
posix.spawn({"/bin/touch", "@MARKER@"})
family("cuda")
