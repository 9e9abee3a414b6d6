#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=140
# Idle GPUs on the real cluster (issue 13 items 1 and 11): every node's GPUs and their switch
# downstream ports read "2.5 GT/s PCIe" against "32.0 GT/s PCIe", as idle NVIDIA GPUs train
# them. With railcheck as Prolog, Epilog and HealthCheckProgram no node is drained and a
# 2-node job runs without a requeue; n003, whose GPU 3 is at x8 of x16, is drained with that
# reason. n004's rail 2 NIC runs another firmware: a warning, not a drain, and
# `railctl report` names n004 as off the majority on rail 2.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rm -rf "${rgh_sys:?}/healthy"
python3 "$rgh_make_sysfs" "$rgh_sys/healthy" --idle-gpus || rgp_fail "make_sysfs.py failed"
rgh_node_tree n004 --idle-gpus --fw 2:28.37.1014
rgh_configs
rgh_health_check 5
rgh_start  # every node idle (the cluster start waits for that): idle GPUs drain none
rgh_node_tree n003 --idle-gpus --fault gpu-width:3

job=$(rgp_submit -N2 -w n001,n002 --wrap 'true')
rgp_wait_state "$job" COMPLETED 90
rgp_expect_eq "job $job restarts" "$(rgp_job "$job" Restarts)" "0"
rgp_ok "job $job ran on idle-GPU nodes n001,n002 without a requeue (Prolog and Epilog)"

rgh_wait "n003 drained for its x8 GPU" 30 rgh_drained n003
rgp_expect_eq "n003 reason" "$(rgh_reason n003)" "railcheck: rail3 gpu3 PCIe x8 < x16"
rgp_ok "n003 drained: $(rgh_reason n003)"

rgh_wait "3 periodic runs on n004" 60 rgh_state_at_least n004 runs 3
for n in n001 n002 n004 n005; do
  ! rgh_drained "$n" || rgp_fail "$n was drained: $(rgh_reason "$n")"
done
extra=$(rgh_node_field n004 Extra)
[[ $extra == *'"verdict":"warn"'* && $extra == *'"28.37.1014"'* ]] || rgp_fail "n004 Extra: $extra"
rgp_ok "no idle-GPU node drained; n004 warns for its firmware: $extra"

"$rgp_bin/railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" --json \
  >"$rgp_tmp/report.json" 2>"$rgp_tmp/report.err" ||
  rgp_fail "railctl report failed: $(cat "$rgp_tmp/report.err")"
differ=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); f=r["firmware"][2]; print(f["majority"], ",".join(f["differ"]))' "$rgp_tmp/report.json")
rgp_expect_eq "rail 2 firmware: majority and the nodes off it" "$differ" "28.39.1002 n004"
rgp_ok "railctl report: rail 2 majority and differing nodes: $differ"
rgp_done
