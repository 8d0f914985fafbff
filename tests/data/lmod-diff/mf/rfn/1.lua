-- requireFullName: `load rfn` fails, `load rfn/1` works
requireFullName()
setenv("RFN", "1")
