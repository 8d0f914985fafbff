-- -*- lua -*-
-- Site overlay tree (ahead of lmod/ on users' MODULEPATH): inherit() EasyBuild's CUDA/13.0.0, then add the site's own settings
inherit()
conflict("cuda")
setenv("SITE_CUDA_SUPPORT", "hpc-help@example.edu")
add_property("arch", "gpu")
