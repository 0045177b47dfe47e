/* SPDX-License-Identifier: MIT */
/* A minimal intrusive, circular, doubly-linked list (the head is a node that holds no entry). */
#ifndef ENC_COMMON_LIST_H
#define ENC_COMMON_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct enc_list {
	struct enc_list *next;
	struct enc_list *prev;
};

#define enc_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static inline void enc_list_init(struct enc_list *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool enc_list_is_empty(const struct enc_list *head)
{
	return head->next == head;
}

static inline void enc_list_add_tail(struct enc_list *head, struct enc_list *node)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static inline void enc_list_del(struct enc_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	node->next = node;
	node->prev = node;
}

/* Iterate; the body may delete the current node only if it then leaves the loop. */
#define enc_list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

/* Iterate allowing deletion of the current node. */
#define enc_list_for_each_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); (pos) = (tmp), (tmp) = (pos)->next)

#endif /* ENC_COMMON_LIST_H */
