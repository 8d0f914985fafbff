-- LmodWarning: changes are kept, Lmod exits 1
LmodWarning("careful")
setenv("WARNED", "1")
prepend_path("PATH", "/opt/warn/bin")
