-- removes one count of b1's entry
remove_path("PATH", "/opt/shared/bin")
