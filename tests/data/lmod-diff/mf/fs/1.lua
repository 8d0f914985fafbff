-- isDir / isFile on the real filesystem
setenv("D_TMP", isDir("/tmp") and "yes" or "no")
setenv("D_NOPE", isDir("/no/such/dir") and "yes" or "no")
setenv("F_SELF", isFile(myFileName()) and "yes" or "no")
setenv("F_TMP", isFile("/tmp") and "yes" or "no")
setenv("D_SELF", isDir(myFileName()) and "yes" or "no")
