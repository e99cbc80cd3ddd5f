# Installing the system integration and making the Debian package (CPack DEB).
#
#   ninja -C build package-deb                 build/sluice_VERSION_ARCH.deb
#   cmake --install build --prefix /usr        the same files, unpackaged
#
# The package holds what `cmake --install` installs (stripped), under prefix /usr whatever
# CMAKE_INSTALL_PREFIX says, with the maintainer scripts of debian/ (accounts through
# systemd-sysusers or adduser, directories through systemd-tmpfiles, the service through
# deb-systemd-helper/-invoke, each only when present). The unit and the scripts name the
# package's paths (/usr/sbin/sluice-rtrmgr, /usr/lib/sluice, /etc/sluice), so an install with
# another prefix gets the programs but a unit that does not fit them.

set(SLUICE_PACKAGE_PREFIX /usr)
set(SLUICE_FULL_SBINDIR ${SLUICE_PACKAGE_PREFIX}/${SLUICE_INSTALL_SBINDIR})
set(SLUICE_FULL_DAEMONDIR ${SLUICE_PACKAGE_PREFIX}/${SLUICE_INSTALL_DAEMONDIR})
set(SLUICE_FULL_CONFDIR /etc/sluice)
set(SLUICE_SYSTEMD_UNITDIR /lib/systemd/system)  # Debian 12's place for packaged units

set(_deb ${PROJECT_BINARY_DIR}/debian)
configure_file(${PROJECT_SOURCE_DIR}/debian/sluice.service.in ${_deb}/sluice.service @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/debian/sluice-fea-remote.service.in
  ${_deb}/sluice-fea-remote.service @ONLY)
foreach(_script postinst prerm postrm)
  configure_file(${PROJECT_SOURCE_DIR}/debian/${_script}.in ${_deb}/${_script} @ONLY
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                     WORLD_READ WORLD_EXECUTE)
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/debian/conffiles.in ${_deb}/conffiles @ONLY)

install(FILES ${PROJECT_SOURCE_DIR}/rtrmgr/examples/sluice.conf DESTINATION ${SLUICE_FULL_CONFDIR}
  PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${PROJECT_SOURCE_DIR}/rtrmgr/examples/everything.conf
              ${PROJECT_SOURCE_DIR}/rtrmgr/examples/main-job.conf
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES ${_deb}/sluice.service ${_deb}/sluice-fea-remote.service
  DESTINATION ${SLUICE_SYSTEMD_UNITDIR})
install(FILES ${PROJECT_SOURCE_DIR}/debian/sysusers.conf DESTINATION lib/sysusers.d
  RENAME sluice.conf)
install(FILES ${PROJECT_SOURCE_DIR}/debian/tmpfiles.conf DESTINATION lib/tmpfiles.d
  RENAME sluice.conf)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Sluice <dev@sluice.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "routing control plane: BGP, RIB and kernel FIB")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "Sluice is a routing control plane built as XORP was: separate BGP, RIB and FEA\n"
  "processes, started and configured by a router manager, talking through a Finder.\n"
  "The service sluice runs /etc/sluice/sluice.conf; `sluice` is the command line.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The maintainer scripts create the accounts with either.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd | adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${_deb}/postinst ${_deb}/prerm ${_deb}/postrm
  ${_deb}/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${SLUICE_PACKAGE_PREFIX})
set(CPACK_STRIP_FILES ON)
include(CPack)

# The package from the programs alone (`ninja package` would build every test first).
get_property(_programs GLOBAL PROPERTY SLUICE_INSTALLED_PROGRAMS)
add_custom_target(package-deb
  COMMAND ${CMAKE_CPACK_COMMAND} --config ${PROJECT_BINARY_DIR}/CPackConfig.cmake
  WORKING_DIRECTORY ${PROJECT_BINARY_DIR} USES_TERMINAL)
add_dependencies(package-deb ${_programs})
