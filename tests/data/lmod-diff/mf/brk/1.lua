-- LmodBreak in load mode: this module's changes are dropped
setenv("BRK_BEFORE", "1")
prepend_path("PATH", "/opt/brk/bin")
LmodBreak("stopping")
setenv("BRK_AFTER", "1")
