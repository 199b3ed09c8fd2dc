/* Real functions around DPDK's static inline functions and macros; see shim.h. */
#include "shim.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int upfb_errno(void) { return rte_errno; }

unsigned int upfb_lcore_id(void) { return rte_lcore_id(); }

uint64_t upfb_rdtsc(void) { return rte_rdtsc(); }

const char *upfb_eal_pmd_path(void)
{
#ifdef RTE_EAL_PMD_PATH
	return RTE_EAL_PMD_PATH;
#else
	return "";
#endif
}

uint16_t upfb_rx_burst(uint16_t port_id, uint16_t queue_id, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port_id, queue_id, pkts, n);
}

uint16_t upfb_tx_burst(uint16_t port_id, uint16_t queue_id, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port_id, queue_id, pkts, n);
}

int upfb_mempool_get_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned int n)
{
	return rte_mempool_get_bulk(pool, (void **)mbufs, n);
}

int upfb_pktmbuf_alloc_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned int n)
{
	return rte_pktmbuf_alloc_bulk(pool, mbufs, n);
}

struct rte_mbuf *upfb_pktmbuf_alloc(struct rte_mempool *pool) { return rte_pktmbuf_alloc(pool); }

void upfb_pktmbuf_free(struct rte_mbuf *m) { rte_pktmbuf_free(m); }

uint16_t upfb_pktmbuf_data_room_size(struct rte_mempool *pool)
{
	return rte_pktmbuf_data_room_size(pool);
}

/*
 * munmap, interposed: first a grace period of the datapath workers (quiescence.rs). DPDK 22.11's
 * memif PMD unmaps its shared regions on the interrupt thread when the peer disconnects, while a
 * worker may be inside a burst on them; the bursts that begin after its "connected" flag is
 * cleared do not touch them, so waiting until every worker has been between bursts once makes
 * the unmap safe. The upfbench binary exports this symbol (-Wl,--export-dynamic-symbol=munmap)
 * so that the PMD plugins, loaded later by dlopen, bind to it instead of libc's.
 */
void upfb_datapath_grace(void);

int munmap(void *addr, size_t len)
{
	upfb_datapath_grace();
	return (int)syscall(SYS_munmap, addr, len);
}

/* The outer headers of a G-PDU: Ethernet, IPv4, UDP (the PMD fills in port 2152 for GTPU), GTP-U;
 * `gtp` NULL matches every TEID. */
static void gtpu_pattern(struct rte_flow_item pattern[5], const struct rte_flow_item_gtp *spec,
			 const struct rte_flow_item_gtp *mask)
{
	memset(pattern, 0, 5 * sizeof(pattern[0]));
	pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pattern[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	pattern[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	pattern[3].type = RTE_FLOW_ITEM_TYPE_GTPU;
	pattern[3].spec = spec;
	pattern[3].mask = mask;
	pattern[4].type = RTE_FLOW_ITEM_TYPE_END;
}

static int validate_or_create(uint16_t port, const struct rte_flow_item *pattern,
			      const struct rte_flow_action *actions, int create,
			      struct rte_flow **flow, const char **message)
{
	struct rte_flow_attr attr = {.ingress = 1};
	struct rte_flow_error error = {0};
	int ret = rte_flow_validate(port, &attr, pattern, actions, &error);
	if (ret == 0 && create) {
		*flow = rte_flow_create(port, &attr, pattern, actions, &error);
		ret = *flow ? 0 : -rte_errno;
	}
	*message = error.message;
	return ret;
}

int upfb_flow_gtpu_rss(uint16_t port, const uint16_t *queues, uint16_t n, int create,
		       struct rte_flow **flow, const char **message)
{
	struct rte_flow_item pattern[5];
	gtpu_pattern(pattern, NULL, NULL);
	struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.level = 0,
		.types = RTE_ETH_RSS_GTPU,
		.queue_num = n,
		.queue = queues,
	};
	struct rte_flow_action actions[2] = {
		{.type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss},
		{.type = RTE_FLOW_ACTION_TYPE_END},
	};
	return validate_or_create(port, pattern, actions, create, flow, message);
}

int upfb_flow_gtpu_teid_queue(uint16_t port, uint32_t teid, uint32_t mask, uint16_t queue,
			      int create, struct rte_flow **flow, const char **message)
{
	struct rte_flow_item_gtp spec = {.teid = rte_cpu_to_be_32(teid)};
	struct rte_flow_item_gtp spec_mask = {.teid = rte_cpu_to_be_32(mask)};
	struct rte_flow_item pattern[5];
	gtpu_pattern(pattern, &spec, &spec_mask);
	struct rte_flow_action_queue to = {.index = queue};
	struct rte_flow_action actions[2] = {
		{.type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &to},
		{.type = RTE_FLOW_ACTION_TYPE_END},
	};
	return validate_or_create(port, pattern, actions, create, flow, message);
}

int upfb_flow_flush(uint16_t port, const char **message)
{
	struct rte_flow_error error = {0};
	int ret = rte_flow_flush(port, &error);
	*message = error.message;
	return ret;
}
