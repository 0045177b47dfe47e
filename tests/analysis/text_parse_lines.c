/* SPDX-License-Identifier: MIT */
/*
 * Lines babeltrace2 2.0.4 printed (text_parse_lines.h).
 */
#include "text_parse_lines.h"

/* Real lines (`babeltrace2 TRACE`, local time = UTC on the machine that recorded them). */
const char line_registry[] =
	"[16:09:20.145292453] (+?.????????\?) vm encproxy:registry_create: { cpu_id = 1 }, "
	"{ vpid = 31975, vtid = 31980, procname = \"proxyscope\" }, { gid = 0, refcnt = 1 }";
const char line_state[] =
	"[16:09:20.145419519] (+0.000001149) vm encproxy:task_state: { cpu_id = 0 }, "
	"{ vpid = 31975, vtid = 31982, procname = \"proxy-31982\" }, { task_id = 1, rank = 0, "
	"gid = 0, exec_id = 0, kind = ( \"NETWORK\" : container = 1 ), old = ( \"INIT\" : "
	"container = 0 ), new = ( \"WAITING_DEVICE_TRIGGER\" : container = 2 ), status = 0 }";
const char line_seam[] =
	"[16:09:20.145418370] (+0.000002889) vm encproxy:seam_start: { cpu_id = 0 }, "
	"{ vpid = 31975, vtid = 31982, procname = \"proxy-31982\" }, { task_id = 1, rank = 0, "
	"gid = 0, exec_id = 0, kind = ( \"NETWORK\" : container = 1 ), stream = 0, bb = 0, "
	"ops = 2, rc = 0, duration_ns = 1005 }";
const char line_complete[] =
	"[16:09:20.145462403] (+0.000009936) vm encnet:complete: { cpu_id = 0 }, "
	"{ vpid = 31975, vtid = 31982, procname = \"proxy-31982\" }, { rank = 1, task_id = 3, "
	"exec_id = 0, stream = 0, bb = 0, op = 1, kind = ( \"RECV\" : container = 1 ), peer = 0, "
	"bytes = 65536, tag = 0, status = 0, latency_ns = 16107 }";
const char line_trigger[] =
	"[16:09:20.145429951] (+0.000000506) vm encdev:trigger_write: { cpu_id = 1 }, "
	"{ vpid = 31975, vtid = 31978, procname = \"encdev-0\" }, { rank = 0, exec_id = 0, "
	"stream = 0, value = 0x1 }";
/* `babeltrace2 --clock-seconds --no-delta TRACE` */
const char line_seconds[] =
	"[1795968560.145419519] vm encproxy:task_state: { cpu_id = 0 }, { vpid = 31975, "
	"vtid = 31982, procname = \"proxy-31982\" }, { task_id = 1, rank = 0, gid = 0, "
	"exec_id = 0, kind = ( \"NETWORK\" : container = 1 ), old = ( \"INIT\" : container = 0 ), "
	"new = ( \"WAITING_DEVICE_TRIGGER\" : container = 2 ), status = 0 }";
/* `babeltrace2 --clock-date --clock-gmt TRACE` */
const char line_date[] =
	"[2026-11-29 16:09:20.145466401] (+0.000001207) vm encproxy:seam_stop: { cpu_id = 0 }, "
	"{ vpid = 31975, vtid = 31982, procname = \"proxy-31982\" }, { task_id = 1, rank = 0, "
	"gid = 0, exec_id = 0, kind = ( \"NETWORK\" : container = 1 ), stream = 0, bb = 0, "
	"rc = 0, duration_ns = 381 }";
/* A process died (`run --backend ofi --procs 2 --inject kill:rank=3,exec=5`): the survivor's
 * bus and transport saw it. */
const char line_peer_dead[] =
	"[18:11:10.197239042] (+0.012616580) vm bananaphone:peer_dead: { cpu_id = 1 }, "
	"{ vpid = 14755, vtid = 14769, procname = \"proxy-14769\" }, { cookie = 0xF2657C569C1033C2, "
	"local_rank = 0, dead_rank = 1, pid = 14756, torn = 0, detected = 1 }";
const char line_net_error[] =
	"[18:11:10.197402008] (+0.000162966) vm encnet:error: { cpu_id = 1 }, { vpid = 14755, "
	"vtid = 14769, procname = \"proxy-14769\" }, { rank = 0, peer = 3, err = -3, "
	"prov_errno = 0, text = \"the peer\\'s process died\" }";
/* babeltrace2's stderr (pretty.c's format) */
const char line_discard[] =
	"WARNING: Tracer discarded 1389 events between [15:14:53.635139924] and "
	"[15:14:53.635304649] in trace \"vm/ust/uid/0/64-bit\" (UUID: "
	"3c5a0fbd-8a89-4bd7-9b9b-2a1e4d7ec22a) within stream \"/t/ust/uid/0/64-bit/chan_0\" "
	"(stream class ID: 0, stream ID: 0).";
