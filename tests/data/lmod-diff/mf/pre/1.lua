prereq("lib")
setenv("PRE", "1")
