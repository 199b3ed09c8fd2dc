//! Session establishments per second, client to UPF side: through the sans-IO nodes alone (no
//! socket, no loss), and through the tokio drivers over loopback UDP (each side on its own
//! thread and runtime, as the generator and the reflector would run).

use std::hint::black_box;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use upfbench_pfcp::driver::{self, PfcpClient};
use upfbench_pfcp::ie::NtpTimestamp;
use upfbench_pfcp::node::{Client, ClientConfig, Event, Upf, UpfConfig};
use upfbench_pfcp::plan::UeSessionPlan;

const SESSIONS: u32 = 10_000;
// The tests' plans: UE i of a run.
#[path = "../tests/common/plans.rs"]
#[allow(dead_code, unreachable_pub)]
mod plans;

use plans::UPF_N3;

fn plans(cp: Ipv4Addr) -> Vec<UeSessionPlan> {
    (0..SESSIONS).map(|i| plans::ue_plan(i, cp)).collect()
}

/// Moves datagrams between the two nodes until both are quiet; returns client events seen.
fn pump(client: &mut Client, upf: &mut Upf, now: Instant, cp: SocketAddr, up: SocketAddr) -> usize {
    let mut events = 0;
    loop {
        let mut moved = false;
        while let Some(t) = client.poll_transmit() {
            upf.handle_datagram(now, cp, &t.contents);
            moved = true;
        }
        while let Some(t) = upf.poll_transmit() {
            client.handle_datagram(now, up, &t.contents);
            moved = true;
        }
        while let Some(e) = client.poll_event() {
            black_box(&e);
            events += usize::from(matches!(e, Event::Established(_)));
        }
        while upf.poll_event().is_some() {}
        if !moved {
            return events;
        }
    }
}

fn in_memory(c: &mut Criterion) {
    let (cpa, upa) = (
        Ipv4Addr::new(192, 168, 14, 111),
        Ipv4Addr::new(192, 168, 14, 151),
    );
    let (cp, up) = (driver::n4(cpa), driver::n4(upa));
    let plans = plans(cpa);
    let mut g = c.benchmark_group("establish_in_memory");
    g.throughput(Throughput::Elements(u64::from(SESSIONS)));
    g.sample_size(20);
    g.bench_function("10000_sessions", |b| {
        b.iter_batched(
            || {
                let now = Instant::now();
                let mut client = Client::new(ClientConfig::new(cpa, NtpTimestamp(1), up));
                let mut upf = Upf::new(UpfConfig::new(upa, UPF_N3, NtpTimestamp(2), cpa.into()));
                client.associate(now).unwrap();
                pump(&mut client, &mut upf, now, cp, up);
                (client, upf, now)
            },
            |(mut client, mut upf, now)| {
                for p in &plans {
                    client.establish(now, p).unwrap();
                }
                let n = pump(&mut client, &mut upf, now, cp, up);
                assert_eq!(n, SESSIONS as usize);
                (client, upf)
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn loopback_udp(c: &mut Criterion) {
    // Addresses of their own, so that the loopback test (127.0.0.1/.2) can run beside.
    let (cpa, upa) = (Ipv4Addr::new(127, 0, 0, 51), Ipv4Addr::new(127, 0, 0, 52));
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let upf_thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let ts = driver::recovery_time_stamp_now();
            let (server, channels) =
                driver::serve(driver::n4(upa), UpfConfig::new(upa, UPF_N3, ts, cpa.into()))
                    .await
                    .expect("bind 127.0.0.52:8805");
            // The benchmark mirrors nothing: change events are dropped unread.
            drop(channels);
            ready_tx.send(()).unwrap();
            let _ = stop_rx.await;
            drop(server);
        });
    });
    ready_rx.recv().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("establish_loopback_udp");
    g.throughput(Throughput::Elements(u64::from(SESSIONS)));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    let plans = plans(cpa);
    for window in [64usize, 256, 1024] {
        let (client, _events) = rt.block_on(async {
            let mut config =
                ClientConfig::new(cpa, driver::recovery_time_stamp_now(), driver::n4(upa));
            config.window = window;
            // One client at a time on 127.0.0.51:8805: the previous one's task may still be
            // letting go of the socket.
            loop {
                match PfcpClient::start(driver::n4(cpa), config.clone()).await {
                    Ok(c) => break c,
                    Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                        tokio::time::sleep(Duration::from_millis(10)).await
                    }
                    Err(e) => panic!("bind 127.0.0.51:8805: {e}"),
                }
            }
        });
        rt.block_on(client.associate()).unwrap();
        g.bench_function(format!("10000_sessions_window_{window}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let s = rt.block_on(client.establish_all(plans.clone())).unwrap();
                    total += t.elapsed();
                    assert_eq!(s.len(), SESSIONS as usize);
                    rt.block_on(client.delete_all()).unwrap();
                }
                total
            })
        });
        rt.block_on(client.release()).unwrap();
    }
    g.finish();
    let _ = stop_tx.send(());
    upf_thread.join().unwrap();
}

criterion_group!(benches, in_memory, loopback_udp);
criterion_main!(benches);
