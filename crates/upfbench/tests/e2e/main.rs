//! End-to-end tests: the `upfbench` binary as users run it, generator against reflector.
//!
//! - over memif, two processes (the embedded default's files): every session established over
//!   PFCP, zero loss, a latency sample per packet; the reflector's impairments (drop, duplicate,
//!   reorder, delay) seen exactly by the generator; Ctrl-C during the measured phase; a sweep's
//!   steps each measured and reported;
//! - the ways a run ends without measuring: Ctrl-C or SIGTERM while waiting for a memif peer or
//!   for ARP, ARP unanswered (on `net_pcap` ports, the requests counted by tshark), sessions the
//!   UPF rejects;
//! - in the kernel lab (`deploy/lab.sh`, namespaces of their own): generator and reflector on
//!   `net_af_packet` over veths, PFCP over n4, ARP resolved both ways, zero loss, each port's
//!   kernel interface counting what its PMD did; a `tbf` shaper below the offered rate on the
//!   tester's n3 veth, which the PMD's frames bypass (nothing lost) unless `qdisc_bypass=0`,
//!   and then the whole uplink loss is reported as the tester's, exactly;
//! - IPv6 and dual-stack UEs over memif (profiles/ipv6.yaml, profiles/dual-stack.yaml): every
//!   packet of every stream received both ways, none of the wrong family, each stream's family
//!   and frame sizes in the report;
//! - the reflector's echo mode on `net_af_packet` in the lab's UPF namespace, Scapy on the other
//!   end of the veth: UDP comes back swapped with valid checksums, ARP and ICMP are answered,
//!   TCP is counted;
//! - unknown TEIDs (the generator with `--no-pfcp`): rate-limited Error Indications, each one
//!   received by the generator;
//! - `upfbench search` against the reflector's rate cap (the NDR within the goal's width of
//!   it), against a loss at every load (no NDR, the PDR at the cap) and against a UPF that holds
//!   every packet 100 ms, each trial at the defaults' pace and never counting another's packets;
//! - the command line's overrides over memif: `-m 50%` halves the packets a run sends, `-m
//!   50Mbps` gives each step of a sweep that total at L1, `-d` sets how long each step sends,
//!   `--label` names the run in report.json, report.txt, report.html and `upfbench compare`;
//! - on `net_null`, no peer: a TX asked for more than it can send slips, and the report says so;
//! - `upfbench doctor` and `upfbench nics` on this machine, what they print checked against
//!   /proc and /sys as the test reads them (read only: nothing is bound);
//! - `--metrics` on a sweep and the reflector, scraped by a real Prometheus: what its HTTP API
//!   holds is the report's counts and the reflector's, exactly.
//! - a UPF that fails mid-run (the reflector's N4 impairments and SIGUSR1): a restart seen
//!   within a heartbeat interval, the run stopped with its report or every session
//!   re-established and the outage measured against the reflector's own restart time; a UPF
//!   silent on N4 reported after N1 tries, the run stopped or going on; 30 % of N4 lost and
//!   every session established exactly once;
//! - QER conformance: the shipped `profiles/qos.yaml` against the reflector's policer, each QoS
//!   flow passed at its MBR within 1 %, and the reflector's misbehaviour (10 % over, no
//!   policing) found;
//! - on DPDK's virtio driver, virtio-user ports against the reflector's vhost-user ports: every
//!   session over PFCP, zero loss, a latency sample per packet; with two workers on each side
//!   and a queue pair each, every flow received whole by one worker.
//! - N3 and N6 on VLANs in one-port mode (the shipped memif-vlan pair): zero loss both ways, the
//!   report's sizes counting the tag; on a `net_pcap` device, tshark reads each frame's VLAN id
//!   and PCP, traffic and ARP, and the reflector's echo of those frames retagged with its own;
//!   in the kernel lab on `net_af_packet`, tagged ports with the VLAN offloads, forced to
//!   software, and QinQ: zero loss, each frame's VLAN ids, PCP and MACs on the wire.
//! - N3 and N6 over IPv6 (the shipped memif-v6 pair, profiles/ipv6.yaml): zero loss both ways,
//!   the next hops of both sides found by Neighbor Discovery; one port of each family, both
//!   ways round, every stream whole; on `net_pcap` ports, tshark reads
//!   the G-PDUs' outer IPv6 addresses, N6's IPv6 source, the Neighbor Solicitations for each
//!   peer and the reflector's Neighbor Advertisement answering one.
//! - the reflector with two N3/N6 pairs (the shipped memif-pairs-reflector.yaml), a
//!   single-pair generator on each at once (the test the SMF of both): every packet back on
//!   its own pair, each pair's counts its generator's; a session whose gNB is off its pair's
//!   N3 subnet counted `no_route`.
//! - two N3/N6 port pairs on both sides (the shipped memif-pairs pair): every packet back, each
//!   pair's section holding its UEs' share, the totals the sum of the pairs'.
//! - `upfbench agent` loading a coordinator's segment over HTTP: the profile checked against its
//!   system file (422 located), the block cut over its pair, its states, the 409s of runs and
//!   of steps not armed, the unload.
//!
//! They need root. Each process busy-polls one core and the machine may have two, so the cases
//! run one at a time ([`harness::serial`]), the generator's worker on lcore 1 and the
//! reflector's on lcore 0. Every name a case uses is its own (DPDK file prefixes, memif
//! sockets, N4 addresses, namespaces), so a user's quickstart or lab is left alone; whatever a
//! case started is stopped and removed, also when it fails.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod agent;
mod agent_segments;
mod agent_steps;
mod agents;
mod agents_search;
mod capacity;
mod churn;
mod delay;
mod doctor;
mod echo;
mod exits;
mod handover;
mod harness;
mod ipv6;
mod lab;
mod lab_clock;
mod lab_handover;
mod lab_tester_loss;
mod lab_vlan;
mod memif;
mod memif_interrupts;
mod metrics;
mod overrides;
mod pairs;
mod python_client;
mod qos;
mod reflect_pairs;
mod search;
mod sweep;
mod timeline;
mod transport_v6;
mod tx_slip;
mod upf_failure;
mod virtio;
mod vlan;
