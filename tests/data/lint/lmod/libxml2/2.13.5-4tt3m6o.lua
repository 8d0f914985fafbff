-- -*- lua -*-
-- Spack-style libxml2 module: the runtime dependency cuda/13.0.0-w3k2l4q depends_on (followed; no toolkit of its own)
--
-- libxml2@2.13.5%gcc@13.2.0+pic~python+shared build_system=autotools arch=linux-ubuntu24.04-sapphirerapids/4tt3m6o
--

whatis([[Name : libxml2]])
whatis([[Version : 2.13.5]])
help([[Name   : libxml2]])
help([[Version: 2.13.5]])
help()
help([[Libxml2 is the XML C parser and toolkit developed for the Gnome project.]])

conflict("libxml2")

prepend_path("PATH", "/apps/spack/opt/linux-sapphirerapids/libxml2-2.13.5-4tt3m6o/bin", ":")
prepend_path("MANPATH", "/apps/spack/opt/linux-sapphirerapids/libxml2-2.13.5-4tt3m6o/share/man", ":")
prepend_path("PKG_CONFIG_PATH", "/apps/spack/opt/linux-sapphirerapids/libxml2-2.13.5-4tt3m6o/lib/pkgconfig", ":")
prepend_path("CMAKE_PREFIX_PATH", "/apps/spack/opt/linux-sapphirerapids/libxml2-2.13.5-4tt3m6o/.", ":")
append_path("MANPATH", "", ":")
