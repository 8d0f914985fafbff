-- informational functions: no effect on load
whatis("Name: info")
whatis("Version: 1")
help([[
Multi-line help.
]])
extensions("numpy/1.2, scipy/3.1")
setenv("INFO", "1")
