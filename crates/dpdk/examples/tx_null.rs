//! TX-only rate on one worker lcore: the Rust side of `benches/tx_null_vs_testpmd.sh`.
//!
//! ```text
//! tx_null [--frame-size 64] [--write frame|headers] [--seconds 5] [--warmup 1] [--port net_null0]
//!         -- <EAL arguments>
//! ```
//!
//! Per burst of 32: one bulk allocation (`MbufBurst::fill_with`: `rte_mempool_get_bulk`, then per
//! packet in one pass: the reset of the mbuf's first cache line, as `rte_pktmbuf_reset` does it),
//! the packet length is set (`append`) and, with `--write frame` (the default), the
//! whole frame (Ethernet/IPv4/UDP headers and payload, `--frame-size` bytes) is copied from a
//! template into the mbuf, or with `--write headers` only the 42 bytes of headers (what testpmd's
//! txonly engine writes; the payload keeps whatever the buffer held); then a 32-bit sequence
//! number is written after the headers; then one `rte_eth_tx_burst`. What the port does not take
//! is retried.
//!
//! The rate is measured like testpmd's `Tx-pps`: the port's `opackets` counter read by the main
//! lcore at the start and end of the window, over the TSC time between the reads. It prints one
//! line: `tx_null frame=<bytes> write=<frame|headers> seconds=<s> packets=<n> mpps=<rate>`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, PortConfig, Socket, StopFlag, tsc,
};

/// Ethernet + IPv4 + UDP headers.
const HEADERS: usize = 14 + 20 + 8;
/// The sequence number goes at the start of the UDP payload.
const SEQ_AT: usize = HEADERS;

struct Args {
    frame_size: usize,
    /// Write only the headers, not the whole frame.
    headers_only: bool,
    seconds: f64,
    warmup: f64,
    port: String,
    eal: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        frame_size: 64,
        headers_only: false,
        seconds: 5.0,
        warmup: 1.0,
        port: "net_null0".to_owned(),
        eal: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--frame-size" => {
                args.frame_size = value(&a)?
                    .parse()
                    .map_err(|e| format!("--frame-size: {e}"))?
            }
            "--seconds" => {
                args.seconds = value(&a)?.parse().map_err(|e| format!("--seconds: {e}"))?
            }
            "--warmup" => args.warmup = value(&a)?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--port" => args.port = value(&a)?,
            "--write" => {
                args.headers_only = match value(&a)?.as_str() {
                    "frame" => false,
                    "headers" => true,
                    other => return Err(format!("--write frame|headers, not {other}")),
                }
            }
            "--" => {
                args.eal = it.collect();
                break;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !(HEADERS + 4..=1514).contains(&args.frame_size) {
        return Err(format!("--frame-size must be {}..=1514", HEADERS + 4));
    }
    Ok(args)
}

/// A UDP/IPv4 frame of `len` bytes (no FCS) with valid IPv4 length and checksum.
fn template(len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x02]); // destination MAC
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 0x01]); // source MAC
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip_len = (len - 14) as u16;
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip[8] = 64; // TTL
    ip[9] = 17; // UDP
    ip[12..16].copy_from_slice(&[198, 18, 0, 1]);
    ip[16..20].copy_from_slice(&[198, 18, 0, 2]);
    let sum: u32 = ip
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
        .sum();
    let sum = (sum & 0xffff) + (sum >> 16);
    let checksum = !((sum & 0xffff) + (sum >> 16)) as u16;
    ip[10..12].copy_from_slice(&checksum.to_be_bytes());
    let udp = &mut f[34..42];
    udp[0..2].copy_from_slice(&9u16.to_be_bytes());
    udp[2..4].copy_from_slice(&9u16.to_be_bytes());
    udp[4..6].copy_from_slice(&(ip_len - 20).to_be_bytes());
    for (i, b) in f[HEADERS..].iter_mut().enumerate() {
        *b = i as u8;
    }
    f
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tx_null: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tx_null: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let eal = Eal::init(&args.eal)?;
    let worker = *eal
        .worker_lcores()
        .first()
        .ok_or("needs a worker lcore (-l 0,1)")?;
    let pool = Mempool::new(&eal, "tx_null", 8191, 256, DEFAULT_DATA_ROOM, Socket::Any)?;
    let mut port = Port::from_name(&eal, &args.port)?;
    let started = port.start(&PortConfig::default(), &pool)?;
    let mut queues = started.queues()?;
    let mut txq = queues.tx.pop().ok_or("no tx queue")?;
    let frame = template(args.frame_size);
    let written = if args.headers_only {
        HEADERS
    } else {
        frame.len()
    };
    let frame = &frame[..];
    let stop = StopFlag::new();
    let hz = eal.tsc_hz() as f64;

    let (packets, seconds) = eal.scope(|s| -> Result<(u64, f64), Box<dyn std::error::Error>> {
        let tx = s.launch(worker, || {
            let mut burst = MbufBurst::<32>::new();
            let mut seq = 0u32;
            while !stop.is_stopped() {
                let filled = burst.fill_with(&pool, |m| {
                    let data = m.append(frame.len()).expect("a frame fits in an mbuf");
                    data[..written].copy_from_slice(&frame[..written]);
                    data[SEQ_AT..SEQ_AT + 4].copy_from_slice(&seq.to_be_bytes());
                    seq = seq.wrapping_add(1);
                });
                if filled.is_ok() {
                    txq.tx_burst(&mut burst);
                }
            }
            seq
        })?;
        std::thread::sleep(Duration::from_secs_f64(args.warmup));
        let (p0, t0) = (started.stats()?.opackets, tsc());
        std::thread::sleep(Duration::from_secs_f64(args.seconds));
        let (p1, t1) = (started.stats()?.opackets, tsc());
        stop.stop();
        tx.join().map_err(|_| "the TX worker panicked")?;
        Ok((p1 - p0, (t1 - t0) as f64 / hz))
    })?;
    println!(
        "tx_null frame={} write={} seconds={seconds:.3} packets={packets} mpps={:.2}",
        args.frame_size,
        if args.headers_only {
            "headers"
        } else {
            "frame"
        },
        packets as f64 / seconds / 1e6
    );
    Ok(())
}
