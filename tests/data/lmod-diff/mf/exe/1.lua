-- execute{}: the sandbox records it and does not run it; the env does not depend on it
execute{cmd="true", modeA={"load"}}
execute{cmd=": all modes", modeA={"all"}}
setenv("EXE", "1")
