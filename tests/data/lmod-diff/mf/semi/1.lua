-- a path entry holding ';', the separator of __LMOD_REF_COUNT_*
append_path("LDP", "/s p")
append_path("LDP", "/s p;/q", ";")
append_path("LDP", "/s p")
