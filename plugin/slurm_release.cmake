# SPDX-License-Identifier: GPL-2.0-or-later
# The railguard plugins for a Slurm release besides the installed one (24.11, 25.11, 26.05), from
# the configured source tree scripts/build_slurm.sh leaves: its config.h and internal headers,
# and its topology/common and topology/tree evaluation code, compiled into topology_rail.so
# as Slurm's tree plugin links them. They go to ${CMAKE_BINARY_DIR}/slurm-plugins-<version>,
# apart from the plugins of the installed Slurm: Slurm loads a plugin only into the exact
# version it was built for. What differs per release sits in the slurm_<series>/ folders
# (topo_version.h, js_version.h, the topology entry file and its export map).
#
# railcheck and railctl talk to slurmctld through libslurm, whose RPCs a slurmctld refuses
# from more than three releases back: they too are built per release, into
# ${CMAKE_BINARY_DIR}/slurm-tools-<version>, against the release's installed public headers
# and libslurm (railguard_release_tools below).

# railguard_slurm_release(SERIES SOURCE-TREE WHAT): the Slurm release SERIES ("2411", "2605")
# that the configured tree holds (checked), as RG_VERSION ("24.11.5") and RG_PREFIX (where
# it is installed) in the caller's scope; both empty, with one line that says WHAT is not
# built, when there is no configured tree.
function(railguard_slurm_release series tree what)
  string(REGEX REPLACE "^(..)(..)$" "\\1.\\2" dotted ${series})
  set(RG_VERSION "" PARENT_SCOPE)
  set(RG_PREFIX "" PARENT_SCOPE)
  if(NOT tree OR NOT EXISTS "${tree}/config.h" OR
     NOT EXISTS "${tree}/src/plugins/topology/common/eval_nodes.c")
    message(STATUS "railguard: no configured Slurm ${dotted} tree at '${tree}' "
                   "(scripts/build_slurm.sh ${dotted}.x makes one); not building ${what}")
    return()
  endif()
  file(STRINGS "${tree}/config.h" version REGEX "^#define SLURM_VERSION_STRING")
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" version "${version}")
  if(NOT version MATCHES "^${dotted}\\.")
    message(FATAL_ERROR "railguard: ${tree} holds Slurm '${version}', not ${dotted}")
  endif()
  file(STRINGS "${tree}/config.h" prefix REGEX "^#define SLURM_PREFIX ")
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" prefix "${prefix}")
  set(RG_VERSION "${version}" PARENT_SCOPE)
  set(RG_PREFIX "${prefix}" PARENT_SCOPE)
endfunction()

# railguard_release_plugins(SERIES SOURCE-TREE): the three plugins of that release.
function(railguard_release_plugins series tree)
  railguard_slurm_release(${series} "${tree}" "its plugins")
  if(NOT RG_VERSION)
    return()
  endif()
  set(version ${RG_VERSION})
  set(out "${CMAKE_BINARY_DIR}/slurm-plugins-${version}")
  set(here ${CMAKE_CURRENT_SOURCE_DIR})
  set(ver ${here}/topology_rail/slurm_${series})

  # Slurm's own evaluation code, compiled as Slurm compiles it (not held to our warnings).
  set(slurm_eval
      ${tree}/src/plugins/topology/common/common_topo.c
      ${tree}/src/plugins/topology/common/eval_nodes.c
      ${tree}/src/plugins/topology/common/gres_filter.c
      ${tree}/src/plugins/topology/common/gres_sched.c
      ${tree}/src/plugins/topology/tree/eval_nodes_tree.c)
  set_source_files_properties(${slurm_eval} PROPERTIES COMPILE_OPTIONS "-w")

  # 26.05 keeps 25.11's entry points and adds three: its folder holds only those.
  set(entries ${ver}/topology_rail_${series}.c)
  if(series GREATER 2511)
    list(APPEND entries ${here}/topology_rail/slurm_2511/topology_rail_2511.c)
  endif()
  railguard_slurm_plugin(topology_rail_${series} SLURM_INTERNAL
    SLURM_SRC ${tree} OUT_DIR ${out} OUTPUT_NAME topology_rail
    MAP ${ver}/topology_rail_${series}.map
    SOURCES ${entries} topology_rail/topo_eval.c topology_rail/topo_domains.c
            topology_rail/topo_info.c
            topology_rail/topo_slurm.c topology_rail/topo_bridge.cc common/slurm_log.c
            common/node_run.c
            ${slurm_eval})
  target_include_directories(topology_rail_${series} PRIVATE ${ver})
  target_compile_definitions(topology_rail_${series} PRIVATE SLURM_PLUGIN_DEBUG)

  railguard_slurm_plugin(job_submit_rail_${series} SLURM_INTERNAL
    SLURM_SRC ${tree} OUT_DIR ${out} OUTPUT_NAME job_submit_rail
    MAP ${here}/job_submit_rail/job_submit_rail.map
    SOURCES job_submit_rail/job_submit_rail.c job_submit_rail/js_slurm.c
            job_submit_rail/js_keeper.c job_submit_rail/js_parked.c job_submit_rail/js_features.c job_submit_rail/js_stats.c job_submit_rail/js_domains.c
            job_submit_rail/js_bridge.cc
            common/slurm_log.c common/node_run.c)
  # js_version.h: a release without its own folder takes 24.11's (25.11 and 26.05 do).
  set(js_ver ${here}/job_submit_rail/slurm_${series})
  if(NOT EXISTS ${js_ver})
    set(js_ver ${here}/job_submit_rail/slurm_2411)
  endif()
  target_include_directories(job_submit_rail_${series} PRIVATE ${js_ver})

  # The SPANK plugin needs only <slurm/spank.h>, but the release's: its major.minor is checked.
  railguard_slurm_plugin(spank_railguard_${series}
    OUT_DIR ${out} OUTPUT_NAME spank_railguard
    MAP ${here}/spank_railguard/spank_railguard.map
    SOURCES spank_railguard/spank_railguard.c spank_railguard/spank_bridge.cc)
  target_include_directories(spank_railguard_${series} BEFORE PRIVATE ${tree})

  message(STATUS "railguard: Slurm ${version} plugins go to ${out} (Slurm source ${tree})")
endfunction()

set(RAILGUARD_SLURM_2411_SRC "/opt/railguard/src/slurm-24.11.5" CACHE PATH
    "Configured Slurm 24.11 source tree (scripts/build_slurm.sh 24.11.5); empty = none")
set(RAILGUARD_SLURM_2511_SRC "/opt/railguard/src/slurm-25.11.7" CACHE PATH
    "Configured Slurm 25.11 source tree (scripts/build_slurm.sh 25.11.7); empty = none")
set(RAILGUARD_SLURM_2605_SRC "/opt/railguard/src/slurm-26.05.3" CACHE PATH
    "Configured Slurm 26.05 source tree (scripts/build_slurm.sh 26.05.3); empty = none")

# railguard_release_tools(SERIES SOURCE-TREE): railcheck_<series> and railctl_<series>, named
# railcheck and railctl in slurm-tools-<version>/ (with railcheck's -prolog, -epilog and
# -periodic links), linked to the release's libslurm with an RPATH to it. Only the Slurm
# client (railguard_slurm_client) is compiled again; everything else is the system build's.
# Needs railcheck's targets (healthcheck/): called at the end of the top directory.
function(railguard_release_tools series tree)
  railguard_slurm_release(${series} "${tree}" "its railcheck and railctl")
  if(NOT RG_VERSION)
    return()
  endif()
  set(lib "${RG_PREFIX}/lib")
  if(NOT EXISTS "${RG_PREFIX}/include/slurm/slurm.h" OR NOT EXISTS "${lib}/libslurm.so")
    message(STATUS "railguard: Slurm ${RG_VERSION} is not installed in ${RG_PREFIX} "
                   "(scripts/build_slurm.sh ${RG_VERSION}); not building its railcheck and railctl")
    return()
  endif()
  set(out "${CMAKE_BINARY_DIR}/slurm-tools-${RG_VERSION}")
  railguard_slurm_client(railguard_slurm_${series} ${series} "${RG_PREFIX}/include"
                         "${lib}/libslurm.so")
  railguard_railcheck(railcheck_${series} railguard_slurm_${series})
  add_executable(railctl_${series} $<TARGET_OBJECTS:railctl_main>)
  target_link_libraries(railctl_${series} PRIVATE railguard_cli railguard_slurm_${series})
  foreach(tool railcheck railctl)
    set_target_properties(${tool}_${series} PROPERTIES
      OUTPUT_NAME ${tool} RUNTIME_OUTPUT_DIRECTORY "${out}"
      BUILD_RPATH "${lib}" INSTALL_RPATH "${lib}")
  endforeach()
  message(STATUS "railguard: Slurm ${RG_VERSION} railcheck and railctl go to ${out} "
                 "(libslurm ${lib})")
endfunction()

foreach(series 2411 2511 2605)
  railguard_release_plugins(${series} "${RAILGUARD_SLURM_${series}_SRC}")
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL
    railguard_release_tools ${series} [[${RAILGUARD_SLURM_${series}_SRC}]])")
endforeach()
