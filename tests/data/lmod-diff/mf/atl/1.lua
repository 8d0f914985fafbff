load(atleast("lib", "1.5"))
