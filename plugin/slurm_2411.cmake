# SPDX-License-Identifier: GPL-2.0-or-later
# The railguard plugins for Slurm 24.11, from the configured 24.11 source tree that
# scripts/build_slurm.sh leaves (its config.h, internal headers and topology/common and
# topology/tree evaluation code, compiled into topology_rail.so as Slurm's tree plugin links
# them). They go to ${CMAKE_BINARY_DIR}/slurm-plugins-<version>, apart from the plugins of
# the installed Slurm: Slurm loads a plugin only into the exact version it was built for.
# Included from plugin/CMakeLists.txt; without the tree it says so once and builds nothing.

set(RAILGUARD_SLURM_2411_SRC "/opt/railguard/src/slurm-24.11.5" CACHE PATH
    "Configured Slurm 24.11 source tree (scripts/build_slurm.sh 24.11.5); empty = none")
set(rg_2411 ${RAILGUARD_SLURM_2411_SRC})
if(NOT rg_2411 OR NOT EXISTS "${rg_2411}/config.h" OR
   NOT EXISTS "${rg_2411}/src/plugins/topology/common/eval_nodes.c")
  message(STATUS "railguard: no configured Slurm 24.11 tree at '${rg_2411}' "
                 "(scripts/build_slurm.sh 24.11.5 makes one); not building the 24.11 plugins")
  return()
endif()
file(STRINGS "${rg_2411}/config.h" rg_2411_version
     REGEX "^#define SLURM_VERSION_STRING")
string(REGEX REPLACE ".*\"(.*)\".*" "\\1" rg_2411_version "${rg_2411_version}")
if(NOT rg_2411_version MATCHES "^24\\.11\\.")
  message(FATAL_ERROR "railguard: RAILGUARD_SLURM_2411_SRC=${rg_2411} holds Slurm "
                      "'${rg_2411_version}', not 24.11")
endif()
set(RAILGUARD_PLUGIN_DIR_2411 "${CMAKE_BINARY_DIR}/slurm-plugins-${rg_2411_version}")
set(here ${CMAKE_CURRENT_SOURCE_DIR})

# Slurm's own evaluation code, compiled as Slurm compiles it (not held to our warnings).
set(rg_2411_slurm_eval
    ${rg_2411}/src/plugins/topology/common/common_topo.c
    ${rg_2411}/src/plugins/topology/common/eval_nodes.c
    ${rg_2411}/src/plugins/topology/common/gres_filter.c
    ${rg_2411}/src/plugins/topology/common/gres_sched.c
    ${rg_2411}/src/plugins/topology/tree/eval_nodes_tree.c)
set_source_files_properties(${rg_2411_slurm_eval} PROPERTIES COMPILE_OPTIONS "-w")

railguard_slurm_plugin(topology_rail_2411 SLURM_INTERNAL
  SLURM_SRC ${rg_2411} OUT_DIR ${RAILGUARD_PLUGIN_DIR_2411} OUTPUT_NAME topology_rail
  MAP ${here}/topology_rail/slurm_2411/topology_rail_2411.map
  SOURCES topology_rail/slurm_2411/topology_rail_2411.c topology_rail/topo_eval.c
          topology_rail/topo_info.c topology_rail/topo_slurm.c
          topology_rail/topo_bridge.cc common/slurm_log.c ${rg_2411_slurm_eval})
target_include_directories(topology_rail_2411 PRIVATE ${here}/topology_rail/slurm_2411)
target_compile_definitions(topology_rail_2411 PRIVATE SLURM_PLUGIN_DEBUG)

# The SPANK plugin needs only <slurm/spank.h>, but 24.11's: its major.minor is checked.
railguard_slurm_plugin(spank_railguard_2411
  OUT_DIR ${RAILGUARD_PLUGIN_DIR_2411} OUTPUT_NAME spank_railguard
  MAP ${here}/spank_railguard/spank_railguard.map
  SOURCES spank_railguard/spank_railguard.c spank_railguard/spank_bridge.cc)
target_include_directories(spank_railguard_2411 BEFORE PRIVATE ${rg_2411})

message(STATUS "railguard: Slurm ${rg_2411_version} plugins go to ${RAILGUARD_PLUGIN_DIR_2411} "
               "(Slurm source ${rg_2411})")

railguard_slurm_plugin(job_submit_rail_2411 SLURM_INTERNAL
  SLURM_SRC ${rg_2411} OUT_DIR ${RAILGUARD_PLUGIN_DIR_2411} OUTPUT_NAME job_submit_rail
  MAP ${here}/job_submit_rail/job_submit_rail.map
  SOURCES job_submit_rail/job_submit_rail.c job_submit_rail/js_slurm.c job_submit_rail/js_keeper.c
          job_submit_rail/js_bridge.cc common/slurm_log.c)
target_include_directories(job_submit_rail_2411 PRIVATE ${here}/job_submit_rail/slurm_2411)
