-- -*- lua -*-
local chunk = load("os.execute('touch @MARKER@')")
chunk()
family("cuda")
