# The programs that hold routes (sluice-bgp, sluice-rib, sluice-fea, sluice-replay) and the
# benchmarks that time their code allocate through tcmalloc (gperftools' tcmalloc_minimal, Debian
# libgoogle-perftools-dev): its per-thread caches take the many small, short-lived allocations of
# decoding, the stages and encoding, and the frees on another thread than the allocation (the
# shards, the parse pool) without glibc's arena locks. Processes that hold no routes (the Finder,
# sluice-rtrmgr, the CLI) keep glibc's malloc, whose footprint at start is smaller.
# Sanitizer and fuzz builds keep glibc's malloc too, which the sanitizers replace. The settings
# tcmalloc gets at start are in base/route_allocator.cc.
#
#   sluice_route_allocator(TARGET)   link TARGET with the route allocator; defines
#                                    SLUICE_TCMALLOC=1 for TARGET's sources when it is tcmalloc
set(SLUICE_ALLOCATOR "tcmalloc" CACHE STRING "malloc of the programs that hold routes: tcmalloc or glibc")
set_property(CACHE SLUICE_ALLOCATOR PROPERTY STRINGS tcmalloc glibc)
if(SLUICE_SANITIZE OR SLUICE_FUZZ)
  set(_sluice_allocator glibc)
elseif(SLUICE_ALLOCATOR STREQUAL "tcmalloc")
  find_library(SLUICE_TCMALLOC_LIBRARY NAMES tcmalloc_minimal)
  if(NOT SLUICE_TCMALLOC_LIBRARY)
    message(FATAL_ERROR "tcmalloc_minimal not found: apt-get install libgoogle-perftools-dev, "
      "or configure with -DSLUICE_ALLOCATOR=glibc")
  endif()
  set(_sluice_allocator tcmalloc)
elseif(SLUICE_ALLOCATOR STREQUAL "glibc")
  set(_sluice_allocator glibc)
else()
  message(FATAL_ERROR "SLUICE_ALLOCATOR is tcmalloc or glibc, not '${SLUICE_ALLOCATOR}'")
endif()
message(STATUS "Allocator of the route-holding programs: ${_sluice_allocator}")

function(sluice_route_allocator target)
  if(_sluice_allocator STREQUAL "tcmalloc")
    # Nothing refers to tcmalloc's symbols: keep the library even where the linker would drop
    # unused ones, so that its malloc replaces glibc's.
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
    target_link_libraries(${target} PRIVATE ${SLUICE_TCMALLOC_LIBRARY} sluice_route_allocator)
    target_compile_definitions(${target} PRIVATE SLUICE_TCMALLOC=1)
  endif()
endfunction()
