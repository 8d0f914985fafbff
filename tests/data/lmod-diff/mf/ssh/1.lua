-- source_sh of a script that changes nothing
source_sh("bash", "/dev/null")
setenv("SSH", "1")
