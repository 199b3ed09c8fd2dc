//! Port lookup, information, configuration.

use upfbench_dpdk::{Error, MbufBurst, Offloads, Port, PortConfig};

use crate::fixture::{Fixture, RING_PAIR, TestResult};

pub(crate) fn lookup_by_name_and_id(fx: &Fixture<'_>) -> TestResult {
    let ids = fx.eal.port_ids();
    let names: Vec<String> = ids
        .iter()
        .map(|&id| Port::by_id(fx.eal, id).and_then(|p| p.name()))
        .collect::<Result<_, _>>()?;
    // rte_eth_from_rings names its ports net_ring_<name>.
    let ring_names = RING_PAIR.map(|n| format!("net_ring_{n}"));
    assert_eq!(
        names,
        [
            "net_null0",
            "net_null1",
            "net_ring0",
            &ring_names[0],
            &ring_names[1]
        ]
    );
    assert_eq!(Port::from_name(fx.eal, &ring_names[1])?.id(), fx.ring[1]);

    let null0 = Port::from_name(fx.eal, "net_null0")?;
    assert_eq!(null0.id(), ids[0]);
    assert_eq!(
        Port::by_id(fx.eal, ids[0]).map(drop),
        Err(Error::PortInUse(ids[0])),
        "one handle per port"
    );
    assert_eq!(
        Port::from_name(fx.eal, "net_null0").map(drop),
        Err(Error::PortInUse(ids[0]))
    );
    drop(null0);
    assert!(
        Port::by_id(fx.eal, ids[0]).is_ok(),
        "dropping the handle releases the port"
    );

    assert_eq!(
        Port::from_name(fx.eal, "net_tap9").map(drop),
        Err(Error::PortNotFound("net_tap9".into()))
    );
    assert_eq!(
        Port::by_id(fx.eal, 31).map(drop),
        Err(Error::InvalidPort(31))
    );
    assert_eq!(
        Port::by_id(fx.eal, 9999).map(drop),
        Err(Error::InvalidPort(9999))
    );
    Ok(())
}

pub(crate) fn info_mac_link(fx: &Fixture<'_>) -> TestResult {
    let mut null = Port::from_name(fx.eal, "net_null1")?;
    let info = null.info()?;
    assert_eq!(
        (info.id, info.name.as_str(), info.driver.as_str()),
        (null.id(), "net_null1", "net_null")
    );
    assert!(info.max_rx_queues >= 1 && info.max_tx_queues >= 1);
    assert!(info.capabilities.rss, "net_null offers RSS");
    assert_eq!(
        info.capabilities.offloads,
        Offloads::NONE,
        "net_null offers no named offload"
    );

    let mac = null.mac()?;
    assert_ne!(mac.0, [0; 6]);
    assert_eq!(
        mac.0[0] & 0x03,
        0x02,
        "a random MAC is locally administered unicast"
    );
    assert_eq!(mac.to_string().len(), 17);

    assert!(!null.link()?.up, "down before start");
    let started = null.start(&PortConfig::default(), &fx.pool)?;
    let link = started.link()?;
    assert!(link.up, "up once started");
    assert_eq!(link.speed_mbps, Some(10_000));
    assert!(link.full_duplex);
    drop(started);
    assert!(!null.link()?.up, "down once stopped");

    let ring = Port::by_id(fx.eal, fx.ring[0])?;
    let info = ring.info()?;
    assert_eq!(info.name, format!("net_ring_{}", RING_PAIR[0]));
    assert_eq!(info.driver, "net_ring");
    assert!(!info.capabilities.rss);
    Ok(())
}

pub(crate) fn configuration_errors(fx: &Fixture<'_>) -> TestResult {
    let mut ring = Port::by_id(fx.eal, fx.ring[0])?;
    let rss = PortConfig {
        rss: true,
        ..PortConfig::default()
    };
    match ring.start(&rss, &fx.pool).map(drop) {
        Err(Error::InvalidConfig { port, reason }) => {
            assert_eq!(port, fx.ring[0]);
            assert!(reason.contains("RSS"), "{reason}");
        }
        other => panic!("RSS on net_ring: {other:?}"),
    }
    let checksum = PortConfig {
        offloads: Offloads {
            rx_ipv4_checksum: true,
            tx_udp_checksum: true,
            ..Offloads::NONE
        },
        ..PortConfig::default()
    };
    match ring.start(&checksum, &fx.pool).map(drop) {
        Err(Error::InvalidConfig { reason, .. }) => {
            assert!(
                reason.contains("rx IPv4 checksum") && reason.contains("tx UDP checksum"),
                "{reason}"
            );
        }
        other => panic!("checksum offloads on net_ring: {other:?}"),
    }
    let many = PortConfig {
        rx_queues: 64,
        ..PortConfig::default()
    };
    assert!(matches!(
        ring.start(&many, &fx.pool).map(drop),
        Err(Error::InvalidConfig { .. })
    ));

    // The same port starts with a valid configuration, and its queues have one handle each at
    // a time: taken again only once every handle of the first set is dropped.
    let started = ring.start(&PortConfig::default(), &fx.pool)?;
    let mut queues = started.queues()?;
    assert_eq!((queues.rx.len(), queues.tx.len()), (1, 1));
    assert_eq!((queues.rx[0].port(), queues.rx[0].id()), (fx.ring[0], 0));
    assert_eq!(
        started.queues().map(drop),
        Err(Error::QueuesTaken(fx.ring[0]))
    );
    let rx = queues.rx.pop().expect("one");
    drop(queues);
    assert_eq!(
        started.queues().map(drop),
        Err(Error::QueuesTaken(fx.ring[0])),
        "a receive queue's handle is still alive"
    );
    drop(rx);
    let again = started.queues()?;
    assert_eq!((again.rx[0].id(), again.tx[0].id()), (0, 0));
    Ok(())
}

pub(crate) fn rss_across_rx_queues_on_net_null(fx: &Fixture<'_>) -> TestResult {
    let mut null = Port::from_name(fx.eal, "net_null0")?;
    let config = PortConfig {
        rx_queues: 2,
        tx_queues: 2,
        rx_desc: 256,
        tx_desc: 256,
        rss: true,
        offloads: Offloads::NONE,
    };
    let started = null.start(&config, &fx.pool)?;
    assert_eq!((started.rx_desc(), started.tx_desc()), (256, 256));
    let mut queues = started.queues()?;
    assert_eq!(queues.rx.len(), 2);
    // net_null's receive side makes up packets (64 bytes) on every queue.
    for rxq in &mut queues.rx {
        let mut burst = MbufBurst::<16>::new();
        assert_eq!(rxq.rx_burst(&mut burst), 16, "queue {}", rxq.id());
        assert!(burst.iter().all(|m| m.len() == 64));
    }
    let stats = started.stats()?;
    assert_eq!(stats.ipackets, 32);
    assert_eq!(&stats.rx_queues[..3], &[16, 16, 0], "per queue");
    Ok(())
}

/// net_null has no rte_flow: both ways of spreading GTP-U by TEID are refused, each with the
/// driver's reason, and the port goes on receiving on both queues.
pub(crate) fn teid_steering_refused_without_rte_flow(fx: &Fixture<'_>) -> TestResult {
    let mut null = Port::from_name(fx.eal, "net_null1")?;
    let config = PortConfig {
        rx_queues: 2,
        tx_queues: 2,
        rx_desc: 256,
        tx_desc: 256,
        rss: true,
        offloads: Offloads::NONE,
    };
    let started = null.start(&config, &fx.pool)?;
    assert_eq!(started.rx_queue_count(), 2);
    let refused = started
        .steer_gtpu_by_teid(0)
        .expect_err("net_null has no flow rules");
    assert_eq!(refused.driver, "net_null");
    for reason in [&refused.hash, &refused.low_bits] {
        assert!(reason.contains("errno"), "{reason}");
    }
    let text = refused.to_string();
    assert!(
        text.contains("RSS rule on the TEID") && text.contains("low bits"),
        "{text}"
    );
    let mut queues = started.queues()?;
    for rxq in &mut queues.rx {
        let mut burst = MbufBurst::<8>::new();
        assert_eq!(rxq.rx_burst(&mut burst), 8, "queue {}", rxq.id());
    }
    Ok(())
}

pub(crate) fn promiscuous_mode(fx: &Fixture<'_>) -> TestResult {
    let mut port = Port::from_name(fx.eal, "net_ring0")?;
    port.set_promiscuous(true)?;
    assert!(port.is_promiscuous()?);
    port.set_promiscuous(false)?;
    assert!(!port.is_promiscuous()?);
    Ok(())
}
