/* Real functions around DPDK's static inline functions and macros; see shim.h. */
#include "shim.h"

int upfb_errno(void) { return rte_errno; }

unsigned int upfb_lcore_id(void) { return rte_lcore_id(); }

uint64_t upfb_rdtsc(void) { return rte_rdtsc(); }

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
