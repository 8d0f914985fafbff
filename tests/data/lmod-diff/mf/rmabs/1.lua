-- remove_path of an absent entry and from an absent variable
remove_path("PATH", "/not/there")
remove_path("NOSUCHVAR", "/x")
