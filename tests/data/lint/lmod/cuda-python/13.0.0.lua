-- EasyBuild-style PythonBundle (--module-depends-on): depends_on("CUDA/13.0.0") followed two levels deep, and extensions()
help([==[

Description
===========
CUDA Python: Python bindings for the CUDA driver and runtime APIs.


Included extensions
===================
cuda-bindings-13.0.0, cuda-pathfinder-1.1.0, cuda-python-13.0.0
]==])

whatis([==[Description: CUDA Python: Python bindings for the CUDA driver and runtime APIs.]==])
whatis([==[Extensions: cuda-bindings-13.0.0, cuda-pathfinder-1.1.0, cuda-python-13.0.0]==])

local root = "/apps/easybuild/software/cuda-python/13.0.0"

conflict("cuda-python")

depends_on("CUDA/13.0.0")

extensions("cuda-bindings/13.0.0,cuda-pathfinder/1.1.0,cuda-python/13.0.0")

prepend_path("PYTHONPATH", pathJoin(root, "lib/python3.12/site-packages"))
setenv("EBROOTCUDAMINPYTHON", root)
setenv("EBVERSIONCUDAMINPYTHON", "13.0.0")
-- Built with EasyBuild version 5.1.1
