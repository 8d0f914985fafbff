-- remove_path of a present entry
remove_path("PATH", "/usr/bin")
