add_property("arch", "gpu")
add_property("state", "testing")
remove_property("state", "testing")
setenv("PROP", "1")
