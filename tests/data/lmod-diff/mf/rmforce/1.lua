-- remove_path with force=true, and a counted remove
remove_path{"PATH", "/opt/pp/bin", force=true}
remove_path("MANPATH", "/opt/pp/man")
