/* The parts of DPDK that are `static inline` or macros, behind real functions that Rust can call.
 * Each is called once per burst (or once per process), never once per packet on the fast path. */
#ifndef UPFBENCH_DPDK_SHIM_H
#define UPFBENCH_DPDK_SHIM_H

#include <rte_config.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_version.h>

/* rte_errno is a per-lcore thread-local variable behind a macro. */
int upfb_errno(void);
/* rte_lcore_id() reads a thread-local variable. */
unsigned int upfb_lcore_id(void);
/* rte_rdtsc() for targets where Rust does not read the counter itself. */
uint64_t upfb_rdtsc(void);
/* The directory EAL loads the PMD plugins from (RTE_EAL_PMD_PATH), "" if it has none. */
const char *upfb_eal_pmd_path(void);

uint16_t upfb_rx_burst(uint16_t port_id, uint16_t queue_id, struct rte_mbuf **pkts, uint16_t n);
uint16_t upfb_tx_burst(uint16_t port_id, uint16_t queue_id, struct rte_mbuf **pkts, uint16_t n);

/* Raw mbufs (refcnt 1, one segment, next NULL; other fields as the last user left them). */
int upfb_mempool_get_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned int n);
int upfb_pktmbuf_alloc_bulk(struct rte_mempool *pool, struct rte_mbuf **mbufs, unsigned int n);
struct rte_mbuf *upfb_pktmbuf_alloc(struct rte_mempool *pool);
void upfb_pktmbuf_free(struct rte_mbuf *m);
uint16_t upfb_pktmbuf_data_room_size(struct rte_mempool *pool);

/* rte_flow rules that spread received GTP-U across the receive queues by TEID (see flow.rs): the
 * pattern and action arrays are built here, where DPDK's structures are plain C. With `create` 0 a
 * rule is only validated. Each returns 0 or a negative errno, with DPDK's reason in *message (a
 * static string, or NULL). */
int upfb_flow_gtpu_rss(uint16_t port, const uint16_t *queues, uint16_t n, int create,
		       struct rte_flow **flow, const char **message);
int upfb_flow_gtpu_teid_queue(uint16_t port, uint32_t teid, uint32_t mask, uint16_t queue,
			      int create, struct rte_flow **flow, const char **message);
int upfb_flow_flush(uint16_t port, const char **message);

#endif
