/* Real functions around DPDK's static inline functions and macros; see shim.h. */
#include "shim.h"

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
