/* SPDX-License-Identifier: MIT */
/*
 * The bus's names for log lines and tracepoints (its enums and errnos as strings) and the job
 * cookie: a leaf every other file of the bus may call.
 */
#include <errno.h>

#include "bananaphone/bp_internal.h"

const char *bp__member_state_str(enum bp_member_state state)
{
	static const char *const names[BP_MEMBER_STATE_NR] = {
		[BP_MEMBER_EMPTY] = "EMPTY", [BP_MEMBER_JOINED] = "JOINED", [BP_MEMBER_LEFT] = "LEFT",
	};

	return BP_STR(names, state);
}

const char *bp__msg_kind_str(enum bp_msg_kind kind)
{
	static const char *const names[BP_MSG_KIND_NR] = {
		[BP_MSG_NONE] = "NONE", [BP_MSG_HELLO] = "HELLO", [BP_MSG_REPLY] = "REPLY",
		[BP_MSG_BYE] = "BYE",
	};

	return BP_STR(names, kind);
}

const char *bp__fault_point_str(enum bp_fault_point point)
{
	static const char *const names[BP_FAULT_POINT_NR] = {
		[BP_FAULT_RECORD_HALF] = "half", [BP_FAULT_PUBLISHED] = "published",
		[BP_FAULT_ARRIVED] = "arrived", [BP_FAULT_REQUESTED] = "requested",
	};

	return BP_STR(names, point);
}

const char *bp__gather_op_str(enum bp_gather_op op)
{
	static const char *const names[BP_GATHER_OP_NR] = {
		[BP_OP_ALLGATHER] = "ALLGATHER", [BP_OP_BROADCAST] = "BROADCAST",
	};

	return BP_STR(names, op);
}

/* FNV-1a: a stable 64-bit name for the job in the header and in every tracepoint. */
uint64_t bp__job_cookie(const char *job)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)job; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return h;
}

const char *bp_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "success";
	case EINVAL: return "invalid argument (job, rank, rank count or record size)";
	case ENOENT: return "no bus of that name appeared before the join deadline";
	case EADDRINUSE: return "a bus of that name already exists";
	case EEXIST: return "another process already claimed this local rank";
	case EMSGSIZE: return "record size or local rank count differs from the bus's";
	case EPROTO: return "the other side speaks another bananaphone version";
	case EACCES: return "the other side runs as another user";
	case EXDEV: return "the leader is in another pid namespace";
	case ETIMEDOUT: return "timed out (a rank did not join, or a collective deadline passed)";
	case ESRCH: return "a member process died";
	case EPIPE: return "a member hung up";
	case ESHUTDOWN: return "this process hung up the bus";
	case EBADMSG: return "a record failed its sequence check";
	default: return "system error";
	}
}
