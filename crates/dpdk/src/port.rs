//! Ethernet ports: lookup, information, link, configuration and start.

use std::cell::Cell;
use std::ffi::{CStr, CString, c_char};
use std::fmt;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::config::{Offloads, PortConfig, RSS_HASH};
use crate::eal::Eal;
use crate::error::{Error, Result};
use crate::mempool::Mempool;
use crate::sys;

use upfbench_net::MacAddr;

/// An Ethernet port (a probed NIC or vdev), held exclusively by this handle.
///
/// `Send` but not `Sync`: one thread at a time runs its control functions, which DPDK does not
/// make thread-safe. Starting it ([`Port::start`]) hands out its queues, which go to workers.
pub struct Port<'e> {
    id: u16,
    eal: &'e Eal,
    _not_sync: PhantomData<Cell<()>>,
}

impl fmt::Debug for Port<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Port").field("id", &self.id).finish()
    }
}

/// Link state (`rte_eth_link`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Whether the link is up.
    pub up: bool,
    /// Speed in Mbit/s; `None` when the port reports none or "unknown".
    pub speed_mbps: Option<u32>,
    /// Full duplex (else half).
    pub full_duplex: bool,
    /// Speed negotiated (else fixed).
    pub autoneg: bool,
}

/// Descriptor count limits of a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescLimits {
    /// Fewest descriptors.
    pub min: u16,
    /// Most descriptors.
    pub max: u16,
    /// Counts must be a multiple of this.
    pub align: u16,
}

/// What a port can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// The named offloads that the port offers.
    pub offloads: Offloads,
    /// Whether RSS can hash on IP addresses or UDP/TCP ports.
    pub rss: bool,
    /// DPDK's receive offload mask (`rx_offload_capa`).
    pub rx_offload_capa: u64,
    /// DPDK's transmit offload mask (`tx_offload_capa`).
    pub tx_offload_capa: u64,
    /// DPDK's RSS hash types (`flow_type_rss_offloads`).
    pub rss_hash_types: u64,
}

/// Static facts about a port (`rte_eth_dev_info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortInfo {
    /// Port id.
    pub id: u16,
    /// Device name: vdev name (`net_ring0`) or PCI address.
    pub name: String,
    /// Driver (PMD) name.
    pub driver: String,
    /// NUMA socket, if known.
    pub socket: Option<u32>,
    /// Most receive queues.
    pub max_rx_queues: u16,
    /// Most transmit queues.
    pub max_tx_queues: u16,
    /// Receive descriptor limits.
    pub rx_desc: DescLimits,
    /// Transmit descriptor limits.
    pub tx_desc: DescLimits,
    /// Largest frame the port receives.
    pub max_rx_pktlen: u32,
    /// Offloads and RSS.
    pub capabilities: Capabilities,
}

impl<'e> Port<'e> {
    /// The port with this name: a vdev name (`net_ring0`) or a PCI address (`0000:01:00.0`).
    pub fn from_name(eal: &'e Eal, name: &str) -> Result<Self> {
        let cname = CString::new(name).map_err(|_| Error::NulByte { what: "port name" })?;
        let mut id = 0u16;
        // SAFETY: EAL is initialised; cname is a valid C string; id is a valid out pointer.
        let ret = unsafe { sys::rte_eth_dev_get_port_by_name(cname.as_ptr(), &mut id) };
        if ret != 0 {
            return Err(Error::PortNotFound(name.to_owned()));
        }
        Self::by_id(eal, id)
    }

    /// The port with this id (see [`Eal::port_ids`]).
    pub fn by_id(eal: &'e Eal, id: u16) -> Result<Self> {
        // SAFETY: EAL is initialised; the function bounds-checks id.
        if unsafe { sys::rte_eth_dev_is_valid_port(id) } != 1 {
            return Err(Error::InvalidPort(id));
        }
        if !eal.claim_port(id) {
            return Err(Error::PortInUse(id));
        }
        Ok(Port {
            id,
            eal,
            _not_sync: PhantomData,
        })
    }

    /// Port id.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// Device name.
    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as c_char; sys::RTE_ETH_NAME_MAX_LEN as usize];
        // SAFETY: the port id is valid; buf has RTE_ETH_NAME_MAX_LEN bytes, as the call requires.
        let ret = unsafe { sys::rte_eth_dev_get_name_by_port(self.id, buf.as_mut_ptr()) };
        Error::check("rte_eth_dev_get_name_by_port", ret)?;
        // SAFETY: on success buf holds a NUL-terminated name.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    fn raw_info(&self) -> Result<sys::rte_eth_dev_info> {
        let mut info = MaybeUninit::<sys::rte_eth_dev_info>::zeroed();
        // SAFETY: the port id is valid; info is a valid out pointer of the right type.
        let ret = unsafe { sys::rte_eth_dev_info_get(self.id, info.as_mut_ptr()) };
        Error::check("rte_eth_dev_info_get", ret)?;
        // SAFETY: rte_eth_dev_info_get filled the struct (and zeroed was already a valid value).
        Ok(unsafe { info.assume_init() })
    }

    /// Driver, queue and descriptor limits, capabilities.
    pub fn info(&self) -> Result<PortInfo> {
        let info = self.raw_info()?;
        let driver = if info.driver_name.is_null() {
            String::new()
        } else {
            // SAFETY: driver_name points to the driver's static NUL-terminated name.
            unsafe { CStr::from_ptr(info.driver_name) }
                .to_string_lossy()
                .into_owned()
        };
        // SAFETY: the port id is valid.
        let socket = unsafe { sys::rte_eth_dev_socket_id(self.id) };
        let desc = |l: &sys::rte_eth_desc_lim| DescLimits {
            min: l.nb_min,
            max: l.nb_max,
            align: l.nb_align,
        };
        Ok(PortInfo {
            id: self.id,
            name: self.name()?,
            driver,
            socket: u32::try_from(socket).ok(),
            max_rx_queues: info.max_rx_queues,
            max_tx_queues: info.max_tx_queues,
            rx_desc: desc(&info.rx_desc_lim),
            tx_desc: desc(&info.tx_desc_lim),
            max_rx_pktlen: info.max_rx_pktlen,
            capabilities: Capabilities {
                offloads: Offloads::from_capa(info.rx_offload_capa, info.tx_offload_capa),
                rss: info.flow_type_rss_offloads & RSS_HASH != 0,
                rx_offload_capa: info.rx_offload_capa,
                tx_offload_capa: info.tx_offload_capa,
                rss_hash_types: info.flow_type_rss_offloads,
            },
        })
    }

    /// The port's MAC address.
    pub fn mac(&self) -> Result<MacAddr> {
        let mut addr = sys::rte_ether_addr::default();
        // SAFETY: the port id is valid; addr is a valid out pointer.
        let ret = unsafe { sys::rte_eth_macaddr_get(self.id, &mut addr) };
        Error::check("rte_eth_macaddr_get", ret)?;
        Ok(MacAddr(addr.addr_bytes))
    }

    /// The link state now (does not wait for negotiation).
    pub fn link(&self) -> Result<Link> {
        let mut link = sys::rte_eth_link::default();
        // SAFETY: the port id is valid; link is a valid out pointer.
        let ret = unsafe { sys::rte_eth_link_get_nowait(self.id, &mut link) };
        Error::check("rte_eth_link_get_nowait", ret)?;
        let speed = link.link_speed;
        Ok(Link {
            up: u32::from(link.link_status()) == sys::RTE_ETH_LINK_UP,
            speed_mbps: (speed != sys::RTE_ETH_SPEED_NUM_NONE
                && speed != sys::RTE_ETH_SPEED_NUM_UNKNOWN)
                .then_some(speed),
            full_duplex: u32::from(link.link_duplex()) == sys::RTE_ETH_LINK_FULL_DUPLEX,
            autoneg: u32::from(link.link_autoneg()) == sys::RTE_ETH_LINK_AUTONEG,
        })
    }

    /// Turns promiscuous mode on or off.
    pub fn set_promiscuous(&mut self, on: bool) -> Result<()> {
        let ret = if on {
            // SAFETY: the port id is valid; this handle is the only one controlling the port.
            unsafe { sys::rte_eth_promiscuous_enable(self.id) }
        } else {
            // SAFETY: as above.
            unsafe { sys::rte_eth_promiscuous_disable(self.id) }
        };
        Error::check("rte_eth_promiscuous_enable/disable", ret).map(drop)
    }

    /// Whether promiscuous mode is on.
    pub fn is_promiscuous(&self) -> Result<bool> {
        // SAFETY: the port id is valid.
        let ret = unsafe { sys::rte_eth_promiscuous_get(self.id) };
        Error::check("rte_eth_promiscuous_get", ret).map(|r| r == 1)
    }

    /// What [`Port::start`] does before it wraps the port: configures the port (queues,
    /// descriptors, RSS, offloads), sets its queues up with `pool` for received packets, and
    /// starts it. Returns the descriptors per receive and per transmit queue, after adjustment
    /// to the port's limits.
    pub(crate) fn configure_and_start(
        &mut self,
        config: &PortConfig,
        pool: &Mempool<'e>,
    ) -> Result<(u16, u16)> {
        let info = self.info()?;
        let invalid = |reason: String| Error::InvalidConfig {
            port: self.id,
            reason,
        };
        if config.rx_queues > info.max_rx_queues || config.tx_queues > info.max_tx_queues {
            return Err(invalid(format!(
                "{} rx / {} tx queues asked for, the port has at most {} / {}",
                config.rx_queues, config.tx_queues, info.max_rx_queues, info.max_tx_queues
            )));
        }
        let missing = config.offloads.missing_from(&info.capabilities.offloads);
        if !missing.is_empty() {
            return Err(invalid(format!(
                "offloads not offered by {}: {}",
                info.driver,
                missing.join(", ")
            )));
        }

        let mut conf = sys::rte_eth_conf::default();
        conf.rxmode.offloads = config.offloads.rx_mask();
        conf.txmode.offloads = config.offloads.tx_mask();
        if config.rss {
            let hash = info.capabilities.rss_hash_types & RSS_HASH;
            if hash == 0 {
                return Err(invalid(format!(
                    "RSS asked for, {} hashes on no IP/UDP/TCP field",
                    info.driver
                )));
            }
            conf.rxmode.mq_mode = sys::rte_eth_rx_mq_mode::RTE_ETH_MQ_RX_RSS;
            conf.rx_adv_conf.rss_conf.rss_hf = hash;
        }
        // SAFETY: the port id is valid and this handle controls it exclusively; conf is a fully
        // initialised configuration that DPDK copies.
        let ret = unsafe {
            sys::rte_eth_dev_configure(self.id, config.rx_queues, config.tx_queues, &conf)
        };
        Error::check("rte_eth_dev_configure", ret)?;

        let (mut rx_desc, mut tx_desc) = (config.rx_desc, config.tx_desc);
        // SAFETY: the port is configured; both pointers are valid in/out values.
        let ret =
            unsafe { sys::rte_eth_dev_adjust_nb_rx_tx_desc(self.id, &mut rx_desc, &mut tx_desc) };
        Error::check("rte_eth_dev_adjust_nb_rx_tx_desc", ret)?;

        // SAFETY: the port id is valid.
        let socket = unsafe { sys::rte_eth_dev_socket_id(self.id) } as u32; // -1 is SOCKET_ID_ANY
        for q in 0..config.rx_queues {
            // SAFETY: the port is configured with rx_queues queues and not started; a null rxconf
            // selects the driver's defaults; the pool is a live packet mbuf pool that outlives the
            // port's use of it (pools live until EAL cleanup).
            let ret = unsafe {
                sys::rte_eth_rx_queue_setup(
                    self.id,
                    q,
                    rx_desc,
                    socket,
                    std::ptr::null(),
                    pool.as_ptr(),
                )
            };
            Error::check("rte_eth_rx_queue_setup", ret)?;
        }
        for q in 0..config.tx_queues {
            // SAFETY: the port is configured with tx_queues queues and not started; a null txconf
            // selects the driver's defaults.
            let ret = unsafe {
                sys::rte_eth_tx_queue_setup(self.id, q, tx_desc, socket, std::ptr::null())
            };
            Error::check("rte_eth_tx_queue_setup", ret)?;
        }
        // SAFETY: the port is configured and its queues are set up.
        let ret = unsafe { sys::rte_eth_dev_start(self.id) };
        Error::check("rte_eth_dev_start", ret)?;
        Ok((rx_desc, tx_desc))
    }
}

impl Drop for Port<'_> {
    fn drop(&mut self) {
        self.eal.release_port(self.id);
    }
}
